import { createHash } from 'node:crypto';
import { jsonSchema, stepCountIs, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import { eq } from 'drizzle-orm';
import { agents, messages, modelCache, type StoredStep } from '../../db/schema';
import { env } from '../env.js';
import { newId } from '../ids';
import { log } from '../log';
import { classifyModelError, ModelError, resolveModel } from '../models/registry';
import type { ProcessRuntime } from '../runtime';
import { callHttpTool } from '../tools/http-tool';
import { conversationMessages } from './service';
import { appendEvents, claim, finish, heartbeat, HEARTBEAT_MS, type ExecutionRow, type Outcome, type RunEvent } from './status';
import { Recorder } from './recorder';

// The worker side of an execution: claim it (queued → running, fenced by `attempt`), run the
// agent's model with its HTTP tools through the AI SDK, record events as they happen and the
// outcome at the end. The run is aborted at once when it is cancelled (NOTIFY `aas_cancel`,
// or a heartbeat that finds the row no longer ours) or its timeout passes.

type AbortReason = 'cancelled' | 'timeout';

type AgentRow = typeof agents.$inferSelect;

function buildTools(agent: AgentRow, executionId: string, signal: AbortSignal): ToolSet {
  const tools: ToolSet = {};
  for (const spec of agent.tools) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (args: unknown, options) => {
        const result = await callHttpTool(spec, args, {
          secret: agent.toolSecret,
          callId: `${executionId}_${options.toolCallId}`,
          signal,
          allowPrivate: env.WEBHOOK_ALLOW_PRIVATE_URLS,
        });
        // A failed call goes back to the model as its result: it may retry or explain.
        return result.ok ? { status: result.status, body: result.body, ...(result.truncated ? { truncated: true } : {}) } : { error: result.error, status: result.status };
      },
    });
  }
  return tools;
}

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

/** Runs one execution to its end (or finds it is not ours to run). Never throws. */
export async function runExecution(rt: ProcessRuntime, executionId: string): Promise<void> {
  const db = rt.database.db;
  const row = await claim(db, executionId);
  // Not queued: cancelled before it started, final, or already running (a job handed out
  // again after its worker died: the sweeper fails it as worker_lost, it never runs twice).
  if (!row) return;
  const attempt = row.attempt;
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
  const end = (outcome: Outcome, extra?: Parameters<typeof finish>[4]) => finish(db, executionId, outcome, { from: ['running'], attempt }, extra);

  try {
    const [agent] = await db.select().from(agents).where(eq(agents.id, row.agentId));
    if (!agent) throw new Error(`agent ${row.agentId} of ${executionId} is missing`);
    timer = setTimeout(() => abort('timeout'), agent.timeoutSeconds * 1000);
    const history = (await conversationMessages(db, row.conversationId)).map((m) => m.modelMessage as ModelMessage);

    let resolved: ReturnType<typeof resolveModel>;
    try {
      resolved = resolveModel(agent.model, { environment: row.environment });
    } catch (err) {
      if (err instanceof ModelError) return void (await end({ status: 'failed', error: { code: err.code, message: err.message } }));
      throw err;
    }

    const key = row.environment === 'test' && !resolved.sandboxed ? cacheKey(resolved.used, agent, history) : null;
    if (key) {
      const [hit] = await db.select().from(modelCache).where(eq(modelCache.key, key));
      if (hit) {
        await recorder.push({ type: 'text.delta', data: { delta: hit.output, step: 0 } });
        await recorder.flush();
        const message: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: hit.output }] };
        return void (await end(
          { status: 'succeeded', output: hit.output, cached: true, model: resolved.used, usage: { inputTokens: hit.inputTokens, outputTokens: hit.outputTokens } },
          async (tx) => void (await tx.insert(messages).values(asMessage(message, executionId, row.conversationId))),
        ));
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
    await recorder.flush();
    const reason = controller.signal.reason as AbortReason | undefined;
    if (reason === 'cancelled') return; // the row is cancelled (or lost) already: nothing of ours to write
    const usage = steps.reduce((u, s) => ({ inputTokens: u.inputTokens + s.usage.inputTokens, outputTokens: u.outputTokens + s.usage.outputTokens }), { inputTokens: 0, outputTokens: 0 });
    const base = { steps, usage, model: resolved.used };
    if (reason === 'timeout') {
      return void (await end({ ...base, status: 'failed', error: { code: 'timeout', message: `The execution did not finish within the agent's timeout (${agent.timeoutSeconds} s)` } }));
    }
    if (failure) return void (await end({ ...base, status: 'failed', error: classifyModelError(failure) }));
    const last = steps.at(-1);
    if (last && last.finishReason === 'tool-calls') {
      const toolFailed = last.toolResults.some((r) => r.isError);
      return void (await end({
        ...base,
        status: 'failed',
        error: toolFailed
          ? { code: 'tool_error', message: `A tool call failed on the last of the agent's ${agent.maxSteps} steps` }
          : { code: 'max_steps_exceeded', message: `The model still wanted to call tools after ${agent.maxSteps} steps (maxSteps)` },
      }));
    }
    const output = last?.text ?? '';
    const responseMessages = (await result.responseMessages) as ModelMessage[];
    await end({ ...base, status: 'succeeded', output }, async (tx) => {
      if (responseMessages.length > 0) await tx.insert(messages).values(responseMessages.map((m) => asMessage(m, executionId, row.conversationId)));
      const toolsCalled = steps.some((s) => s.toolCalls.length > 0);
      if (key && !toolsCalled) {
        await tx.insert(modelCache).values({ key, output, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }).onConflictDoNothing();
      }
    });
  } catch (err) {
    const reason = controller.signal.reason as AbortReason | undefined;
    if (reason === 'cancelled') return;
    if (reason === 'timeout') {
      await end({ status: 'failed', error: { code: 'timeout', message: "The execution did not finish within the agent's timeout" } }).catch(() => {});
      return;
    }
    log.error({ err, executionId }, 'execution failed unexpectedly');
    await end({ status: 'failed', error: classifyModelError(err) }).catch((e: unknown) => log.error({ err: e, executionId }, 'could not record the failure'));
  } finally {
    clearInterval(beat);
    clearTimeout(timer);
    offCancel();
    recorder.close();
  }
}

export type { ExecutionRow };
