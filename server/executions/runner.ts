import { createHash } from 'node:crypto';
import { stepCountIs, streamText, type ModelMessage } from 'ai';
import { eq } from 'drizzle-orm';
import { agents, messages, modelCache, type StoredStep } from '../../db/schema';
import { newId } from '../ids';
import { log } from '../log';
import { classifyModelError, ModelError, resolveModel } from '../models/registry';
import type { Db } from '../../db/client';
import type { ProcessRuntime } from '../runtime';
import { buildTools } from '../tools/toolset';
import { conversationMessages } from './service';
import { appendEvents, claim, finish, heartbeat, HEARTBEAT_MS, type ExecutionRow, type Outcome, type RunEvent } from './status';
import { Recorder } from './recorder';

// The worker side of an execution: claim it (queued → running, fenced by `attempt`), run the
// agent's model with its HTTP tools through the AI SDK, record events as they happen and the
// outcome at the end. The run is aborted at once when it is cancelled (NOTIFY `aas_cancel`,
// or a heartbeat that finds the row no longer ours) or its timeout passes.

type AbortReason = 'cancelled' | 'timeout';

type AgentRow = typeof agents.$inferSelect;

/** The key of a test-mode answer: everything the model is sent. */
function cacheKey(model: string, agent: AgentRow, history: ModelMessage[]): string {
  const request = { model, instructions: agent.instructions, temperature: agent.temperature, tools: agent.tools, history };
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

const asMessage = (m: ModelMessage, executionId: string, conversationId: string) => {
  const content =
    typeof m.content === 'string'
      ? m.content
      : m.role === 'tool'
        ? JSON.stringify(m.content.map((p) => (p.type === 'tool-result' ? p.output : p)))
        : m.content
            .map((p) => (p.type === 'text' ? p.text : ''))
            .join('');
  return { id: newId('msg'), conversationId, executionId, role: m.role as 'assistant' | 'tool', content, modelMessage: m };
};

/** What a run starts from: the execution (running, this attempt's), its agent, and the conversation so far. */
export interface Started {
  row: ExecutionRow;
  agent: AgentRow | undefined;
  history: { modelMessage: unknown }[];
}

/**
 * Runs a queued execution's job: claims it, then runs it (`runStarted`). False when it was not
 * ours to run. `settle` completes the job inside the transaction that records the outcome; true
 * when that transaction committed with it (nothing left to settle).
 */
export async function runExecution(rt: ProcessRuntime, executionId: string, settle?: (tx: Db) => Promise<unknown>): Promise<boolean> {
  const claimed = await claim(rt.database.db, executionId, (tx, row) =>
    Promise.all([tx.select().from(agents).where(eq(agents.id, row.agentId)).execute(), conversationMessages(tx, row.conversationId)]),
  );
  // Not queued: cancelled before it started, final, or already running (a job handed out
  // again after its worker died: the sweeper fails it as worker_lost, it never runs twice).
  if (!claimed) return false;
  const [[agent], history] = claimed.read;
  return (await runStarted(rt, { row: claimed.row, agent, history }, settle)).settled;
}

/**
 * Runs a running execution to its end and records the outcome. Never throws. `final`: the
 * execution as it finished (null when another party ended it: cancelled, or declared lost).
 */
export async function runStarted(
  rt: ProcessRuntime,
  { row, agent, history: messageRows }: Started,
  settle?: (tx: Db) => Promise<unknown>,
): Promise<{ settled: boolean; final: ExecutionRow | null }> {
  const db = rt.database.db;
  const executionId = row.id;
  let final: ExecutionRow | null = null;
  const attempt = row.attempt;
  let settled = false;
  const controller = new AbortController();
  const abort = (reason: AbortReason) => !controller.signal.aborted && controller.abort(reason);
  const offCancel = rt.bus.subscribe('aas_cancel', (id) => id === executionId && abort('cancelled'));
  const beat = setInterval(() => {
    heartbeat(db, executionId, attempt).then(
      (ours) => ours || abort('cancelled'),
      (err: unknown) => log.warn({ err, executionId }, 'heartbeat failed'),
    );
  }, HEARTBEAT_MS);
  let timer: NodeJS.Timeout | undefined;
  const recorder = new Recorder((events: RunEvent[]) => appendEvents(db, executionId, attempt, events), () => abort('cancelled'));
  const end = async (outcome: Outcome, extra?: (tx: Db) => Promise<unknown>) => {
    const pending = await recorder.drain();
    final = await finish(db, executionId, outcome, { from: ['running'], attempt }, (tx) => Promise.all([extra?.(tx), settle?.(tx)]), pending);
    settled = final !== null && settle !== undefined;
    return { settled, final };
  };

  try {
    if (!agent) throw new Error(`agent ${row.agentId} of ${executionId} is missing`);
    timer = setTimeout(() => abort('timeout'), agent.timeoutSeconds * 1000);
    const history = messageRows.map((m) => m.modelMessage as ModelMessage);

    let resolved: ReturnType<typeof resolveModel>;
    try {
      resolved = resolveModel(agent.model, { environment: row.environment });
    } catch (err) {
      if (err instanceof ModelError) return await end({ status: 'failed', error: { code: err.code, message: err.message } });
      throw err;
    }

    const key = row.environment === 'test' && !resolved.sandboxed ? cacheKey(resolved.used, agent, history) : null;
    if (key) {
      const [hit] = await db.select().from(modelCache).where(eq(modelCache.key, key));
      if (hit) {
        await recorder.push({ type: 'text.delta', data: { delta: hit.output, step: 0 } });
        const message: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: hit.output }] };
        return await end(
          { status: 'succeeded', output: hit.output, cached: true, model: resolved.used, usage: { inputTokens: hit.inputTokens, outputTokens: hit.outputTokens } },
          (tx) => tx.insert(messages).values(asMessage(message, executionId, row.conversationId)).execute(),
        );
      }
    }

    const result = streamText({
      model: resolved.model,
      ...(agent.instructions ? { instructions: agent.instructions } : {}),
      messages: history,
      tools: buildTools(agent, executionId, controller.signal),
      stopWhen: stepCountIs(agent.maxSteps),
      ...(agent.temperature !== null ? { temperature: agent.temperature } : {}),
      abortSignal: controller.signal,
      maxRetries: 1,
      // The error arrives as an `error` part; the SDK's own logging would print the whole request.
      onError: () => {},
    });
    const steps: StoredStep[] = [];
    let current = Recorder.newStep(0);
    let failure: unknown = null;
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'start-step':
          current = Recorder.newStep(steps.length);
          break;
        case 'text-delta':
          current.text += part.text;
          await recorder.push({ type: 'text.delta', data: { delta: part.text, step: current.index } });
          break;
        case 'tool-call':
          current.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
          await recorder.push({ type: 'tool.call', data: { toolCallId: part.toolCallId, name: part.toolName, arguments: part.input, step: current.index } });
          break;
        case 'tool-result':
        case 'tool-error': {
          const isError = part.type === 'tool-error' || (typeof part.output === 'object' && part.output !== null && 'error' in part.output);
          const value = part.type === 'tool-error' ? { error: String(part.error instanceof Error ? part.error.message : part.error) } : part.output;
          current.toolResults.push({ id: part.toolCallId, name: part.toolName, result: value, isError });
          await recorder.push({ type: 'tool.result', data: { toolCallId: part.toolCallId, name: part.toolName, result: value, isError, step: current.index } });
          break;
        }
        case 'finish-step':
          steps.push(Recorder.endStep(current, part.finishReason, part.usage));
          break;
        case 'error':
          failure = part.error;
          break;
      }
    }
    const reason = controller.signal.reason as AbortReason | undefined;
    if (reason === 'cancelled') return { settled, final }; // the row is cancelled (or lost) already: nothing of ours to write
    const usage = steps.reduce((u, s) => ({ inputTokens: u.inputTokens + s.usage.inputTokens, outputTokens: u.outputTokens + s.usage.outputTokens }), { inputTokens: 0, outputTokens: 0 });
    const base = { steps, usage, model: resolved.used };
    if (reason === 'timeout') {
      return await end({ ...base, status: 'failed', error: { code: 'timeout', message: `The execution did not finish within the agent's timeout (${agent.timeoutSeconds} s)` } });
    }
    if (failure) return await end({ ...base, status: 'failed', error: classifyModelError(failure) });
    const last = steps.at(-1);
    if (last && last.finishReason === 'tool-calls') {
      const toolFailed = last.toolResults.some((r) => r.isError);
      return await end({
        ...base,
        status: 'failed',
        error: toolFailed
          ? { code: 'tool_error', message: `A tool call failed on the last of the agent's ${agent.maxSteps} steps` }
          : { code: 'max_steps_exceeded', message: `The model still wanted to call tools after ${agent.maxSteps} steps (maxSteps)` },
      });
    }
    const output = last?.text ?? '';
    const responseMessages = (await result.responseMessages) as ModelMessage[];
    const toolsCalled = steps.some((s) => s.toolCalls.length > 0);
    await end({ ...base, status: 'succeeded', output }, (tx) =>
      Promise.all([
        responseMessages.length > 0 ? tx.insert(messages).values(responseMessages.map((m) => asMessage(m, executionId, row.conversationId))).execute() : null,
        key && !toolsCalled
          ? tx.insert(modelCache).values({ key, output, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }).onConflictDoNothing().execute()
          : null,
      ]),
    );
  } catch (err) {
    const reason = controller.signal.reason as AbortReason | undefined;
    if (reason === 'cancelled') return { settled, final };
    if (reason === 'timeout') {
      await end({ status: 'failed', error: { code: 'timeout', message: "The execution did not finish within the agent's timeout" } }).catch(() => {});
      return { settled, final };
    }
    log.error({ err, executionId }, 'execution failed unexpectedly');
    await end({ status: 'failed', error: classifyModelError(err) }).catch((e: unknown) => log.error({ err: e, executionId }, 'could not record the failure'));
  } finally {
    clearInterval(beat);
    clearTimeout(timer);
    offCancel();
    recorder.close();
  }
  return { settled, final };
}

export type { ExecutionRow };
