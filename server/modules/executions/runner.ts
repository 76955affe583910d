import { createHash } from 'node:crypto';
import type { ModelMessage } from 'ai';
import { eq } from 'drizzle-orm';
import { modelCache, type agents } from '../../../db/schema';
import { newId } from '../../platform/ids';
import { log } from '../../platform/log';
import { classifyModelError, errorChain, ModelError, resolveModel } from '../models/registry';
import type { Db } from '../../../db/client';
import { McpToolError, type McpOffered } from '../tools/mcp-tool';
import { openTools, type RunTools } from '../tools/toolset';
import { recordedEvent } from './events';
import { finish, type ExecutionRow, type Outcome } from './lifecycle';
import { finishTogether } from './finishes';
import { runModelLoop, type ResumeFrom } from './model-loop';
import { callGuard, heldBy, observerOf, partsAtEnd, partsInProgress, runParts } from './participants';
import { pause } from './pause';
import { recordedTools } from './replay';
import { outputCheck } from './structured-output';
import type { RunPart } from '../vocabulary/participants';
import { traceIdOf } from '../vocabulary/trace-ids';
import type { RunLog } from './recorder';

// The worker side of an execution: claim it (queued → running, fenced by `attempt`), run the
// agent's model with its tools (HTTP tools, MCP servers' tools) through the AI SDK, record
// events as they happen and the outcome at the end. The run is aborted at once when it is
// cancelled (NOTIFY `aas_cancel`, or a heartbeat that finds the row no longer ours) or its
// timeout passes.

type AbortReason = 'cancelled' | 'timeout';

type AgentRow = typeof agents.$inferSelect;

/**
 * The key of a test-mode answer: whose it is (the workspace and environment: an answer is never
 * served to another tenant, who could otherwise read it, or confirm a guess of another's prompt,
 * by sending the same request — docs/security.md) and everything the model is sent. For MCP
 * tools, what their servers listed (and the tool without its header values: secrets have no
 * business in a key).
 */
function cacheKey(owner: Pick<ExecutionRow, 'workspaceId' | 'environment'>, model: string, agent: AgentRow, history: ModelMessage[], mcp: McpOffered[]): string {
  const tools = agent.tools.map((t) => (t.type === 'mcp' ? { ...t, headers: Object.keys(t.headers) } : t));
  const request = {
    workspaceId: owner.workspaceId,
    environment: owner.environment,
    model,
    instructions: agent.instructions,
    temperature: agent.temperature,
    tools,
    history,
    ...(mcp.length > 0 ? { mcp } : {}),
  };
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
  /** What the participants read in the start's transaction of a run started in place, by participant (participants.ts). */
  carried?: Record<string, unknown>;
}

/** What a run needs from the process running it: the abort (cancel, timeout) and the run's event log. */
export interface RunControl {
  controller: AbortController;
  log: RunLog;
}

/**
 * Runs a running execution to its end and records the outcome. Never throws. Returns the
 * execution as it finished, or null when another party ended it (cancelled, or declared lost).
 */
export async function runAgent(db: Db, { row, agent: stored, history: messageRows, carried }: Started, { controller, log: recorder }: RunControl): Promise<ExecutionRow | null> {
  // A replay runs with its overrides (replay.ts): the model it was created with, the instructions it was given.
  const plan = row.replay;
  const agent = stored && plan ? { ...stored, model: row.model, ...(plan.instructions !== undefined ? { instructions: plan.instructions || null } : {}) } : stored;
  const executionId = row.id;
  let final: ExecutionRow | null = null;
  const attempt = row.attempt;
  const abort = (reason: AbortReason) => !controller.signal.aborted && controller.abort(reason);
  let timer: NodeJS.Timeout | undefined;
  let tools: RunTools | undefined;
  /** The participants' parts in this run (participants.ts), from the start of its model loop. */
  let parts: RunPart[] = [];
  /** The finish holding the parts' share committed. */
  let finished = false;
  const end = async (outcome: Outcome, extra?: (tx: Db) => Promise<unknown>) => {
    const tail = await recorder.drain();
    const guard = { from: ['running'] as const, attempt };
    const run = { ...tail, parts: partsAtEnd(parts) };
    // The usual end goes with the process's other ends (finishes.ts); one with a write of its own alone.
    final = extra ? await finish(db, executionId, outcome, guard, extra, run) : await finishTogether(db, executionId, outcome, guard, run);
    finished = final !== null;
    return final;
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

    // The MCP servers are connected and listed first: one that cannot be is the run's failure.
    try {
      tools = await openTools(agent, executionId, controller.signal, traceIdOf(row));
    } catch (err) {
      if (err instanceof McpToolError && !controller.signal.aborted) return await end({ status: 'failed', error: { code: err.code, message: err.message } });
      throw err;
    }

    // A run resumed after a pause for approval goes on from what it kept (docs/approvals.md).
    const paused = row.approval;
    let resume: ResumeFrom | undefined;
    // A replay's recorded tools: none is called (nothing for a participant to hold either: approvals/participant.ts).
    if (plan?.tools === 'recorded') tools = { ...tools, tools: recordedTools(tools.tools, plan.recorded) };
    if (paused) {
      if (paused.calls.some((c) => c.decision === null)) throw new Error(`execution ${executionId} was resumed with calls still awaiting a decision`);
      resume = { steps: row.steps, messages: paused.messages as ModelMessage[], step: paused.step, results: paused.results, calls: paused.calls };
    }

    parts = runParts({ db, row, agent, tools: tools.offered, model: resolved.used, deadline: new Date(Date.now() + agent.timeoutSeconds * 1000 + 60_000), signal: controller.signal }, carried);
    // What the parts record travels with the run's event writes; an end nudges a prompt write while someone follows.
    recorder.attach(() => partsInProgress(parts));
    const nudge = () => recorder.nudge();
    // The tools whose calls wait for a person's decision (a participant's: approvals).
    const held = heldBy(parts);
    const observer = observerOf([...parts, { observe: { callEnded: nudge, toolEnded: nudge } }]);
    // Structured outputs (docs/versions.md): this execute's schema, else its agent version's.
    const schema = row.outputSchema ?? agent.outputSchema ?? null;
    const key = row.environment === 'test' && !resolved.sandboxed && !resume && !plan && !schema ? cacheKey(row, resolved.used, agent, history, tools.mcp) : null;
    if (key) {
      const [hit] = await db.select().from(modelCache).where(eq(modelCache.key, key));
      if (hit) {
        // The answer kept for this request stands for the model call (its tokens are the run's usage, at no cost).
        observer?.callStarted?.(0, { messages: history });
        observer?.firstToken?.(0);
        observer?.callEnded?.(0, { usage: { inputTokens: hit.inputTokens, outputTokens: hit.outputTokens }, finishReason: 'stop', output: { text: hit.output, toolCalls: [] } });
        await recorder.push(recordedEvent('text.delta', { delta: hit.output, step: 0 }));
        const message: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: hit.output }] };
        return await end({
          status: 'succeeded',
          output: hit.output,
          cached: true,
          model: resolved.used,
          usage: { inputTokens: hit.inputTokens, outputTokens: hit.outputTokens },
          messages: [asMessage(message, executionId, row.conversationId)],
        });
      }
    }

    const loop = await runModelLoop(
      {
        model: resolved.model,
        instructions: agent.instructions,
        history,
        tools: tools.tools,
        maxSteps: agent.maxSteps,
        temperature: agent.temperature,
        signal: controller.signal,
        maxTotalTokens: agent.maxTotalTokens,
        ...(held ? { needsApproval: (name: string) => held(name) !== undefined } : {}),
        resume,
        ...(plan && !resume ? { recorded: plan.prefix } : {}),
        guard: callGuard(parts),
        observer,
        ...(schema ? { output: outputCheck(row.workspaceId, schema) } : {}),
      },
      {
        text: (delta, step) => recorder.push(recordedEvent('text.delta', { delta, step })),
        toolCall: (c) => recorder.push(recordedEvent('tool.call', c)),
        toolResult: (r) => recorder.push(recordedEvent('tool.result', r)),
      },
    );
    const { steps, failure } = loop;
    const reason = controller.signal.reason as AbortReason | undefined;
    if (reason === 'cancelled') return final; // the row is cancelled (or lost) already: nothing of ours to write
    const usage = steps.reduce((u, s) => ({ inputTokens: u.inputTokens + s.usage.inputTokens, outputTokens: u.outputTokens + s.usage.outputTokens }), { inputTokens: 0, outputTokens: 0 });
    const base = { steps, usage, model: resolved.used };
    if (reason === 'timeout') {
      return await end({ ...base, status: 'failed', error: { code: 'timeout', message: `The execution did not finish within the agent's timeout (${agent.timeoutSeconds} s)` } });
    }
    if (failure) {
      const error = classifyModelError(failure);
      // What broke, for the operator (the run's error says only what a caller may read).
      if (!(failure instanceof ModelError)) log.warn({ executionId, code: error.code, cause: errorChain(failure) }, 'the model call failed');
      return await end({ ...base, status: 'failed', error });
    }
    if (loop.overTokens) {
      const { used, limit } = loop.overTokens;
      return await end({ ...base, status: 'failed', error: { code: 'max_tokens_exceeded', message: `The execution used ${used} tokens, past the agent's maxTotalTokens (${limit})` } });
    }
    if (loop.refused) return await end({ ...base, status: 'failed', error: loop.refused });
    if (loop.invalidOutput !== undefined) {
      return await end({ ...base, status: 'failed', error: { code: 'output_invalid', message: `The answer did not match the output schema, after one repair turn: ${loop.invalidOutput}`.slice(0, 2_000) } });
    }
    if (loop.paused) {
      const at = new Date();
      const expires = new Date(at.getTime() + agent.approvalTimeoutSeconds * 1000).toISOString();
      const calls = loop.paused.calls.map((c) => ({ ...c, parameters: held?.(c.tool) ?? null, requestedAt: at.toISOString(), expiresAt: expires, decision: null }));
      const approval = { step: loop.paused.step, messages: loop.responseMessages, results: loop.paused.results, calls, pausedAt: at.toISOString() };
      const tail = await recorder.drain();
      final = await pause(db, executionId, attempt, { ...base, approval }, { ...tail, parts: partsAtEnd(parts) });
      finished = final !== null;
      return final;
    }
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
    const responseMessages = loop.responseMessages;
    const toolsCalled = steps.some((s) => s.toolCalls.length > 0);
    const messages = responseMessages.map((m) => asMessage(m, executionId, row.conversationId));
    await end(
      { ...base, status: 'succeeded', output, messages, ...(loop.outputJson !== undefined ? { outputJson: loop.outputJson } : {}) },
      key && !toolsCalled
        ? (tx) => tx.insert(modelCache).values({ key, output, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }).onConflictDoNothing().execute()
        : undefined,
    );
  } catch (err) {
    const reason = controller.signal.reason as AbortReason | undefined;
    if (reason === 'cancelled') return final;
    if (reason === 'timeout') {
      await end({ status: 'failed', error: { code: 'timeout', message: "The execution did not finish within the agent's timeout" } }).catch(() => {});
      return final;
    }
    // The chain of causes and the stack, not the error object: the AI SDK's carry the prompt.
    log.error({ executionId, cause: errorChain(err), stack: err instanceof Error ? err.stack : undefined }, 'execution failed unexpectedly');
    await end({ status: 'failed', error: classifyModelError(err) }).catch((e: unknown) => log.error({ err: e, executionId }, 'could not record the failure'));
  } finally {
    clearTimeout(timer);
    // What the finish did not take (a pause, a cancel, an error: the last call's charge) is settled now.
    for (const part of parts) await part.settle?.(finished).catch((err: unknown) => log.error({ err, executionId }, 'a run participant could not settle'));
    // The MCP connections end with the run, however it ended (never awaited: nothing waits on a slow server).
    void tools?.close();
    recorder.close(final);
  }
  return final;
}

export type { ExecutionRow };
