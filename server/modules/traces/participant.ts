import type { Db } from '../../../db/client';
import type { agents, executions } from '../../../db/schema';
import type { OfferedTool, RunParticipant, RunPart, StatementPart } from '../vocabulary/participants';
import { approvalSpanId, modelSpanId, queueSpanId, rootSpanId, toolSpanId } from '../vocabulary/trace-ids';
import { capped, spansInsert, type RecordedSpan } from './spans';
import { exportSpans, knowAgent } from './export';
import { traceIdOf } from '../vocabulary/trace-ids';

// Traces through the run-participant contract (vocabulary/participants.ts; docs/traces.md):
//   - the run's part records its model calls (first token, tokens, finish reason) and tool calls
//     in memory as the model loop reports them (`observe`), and the wait of a pause for approval
//     it resumes from; they are written with the run's writes of its events while it goes on
//     (lazily, or promptly while someone follows the run or reads its trace) and the rest by the
//     statement that ends the attempt (its finish or its pause), never by one of their own —
//     unless that statement did not commit (a cancel from elsewhere), when they are written on
//     their own;
//   - the root span (`execution`) and the time queued (`queue_wait`) come from the execution's row,
//     written by whatever statement finishes it (the run's own, a cancel, the worker_lost sweeper).

type ExecutionRow = typeof executions.$inferSelect;
type AgentRow = typeof agents.$inferSelect;

const iso = (d: Date) => d.toISOString();

/** What a tool's error result says (its `error` field, or the whole result). */
const toolError = (result: unknown): string => {
  const text = typeof result === 'object' && result !== null && 'error' in result ? (result as { error: unknown }).error : result;
  return (typeof text === 'string' ? text : JSON.stringify(text ?? null)).slice(0, 1000);
};

/** An HTTP tool's answer names the status its endpoint answered (toolset.ts). */
const httpStatusOf = (result: unknown): { httpStatus?: number } => {
  const status = typeof result === 'object' && result !== null ? (result as { status?: unknown }).status : undefined;
  return typeof status === 'number' && Number.isInteger(status) ? { httpStatus: status } : {};
};

/** The execution as an exported span's attributes name it. */
const runOf = (row: ExecutionRow) => ({ id: row.id, traceId: traceIdOf(row), agentId: row.agentId, agentVersion: row.agentVersion, conversationId: row.conversationId, environment: row.environment, status: row.status });

/** Spans written by a statement, handed to the OTLP exporter once it committed (export.ts: nothing when export is off). */
const written = (row: ExecutionRow, spans: RecordedSpan[]): StatementPart => ({
  writes: [spansInsert(row.id, row.environment, spans)],
  committed: () => exportSpans(runOf(row), spans),
});

/** The root and the queue's spans of a finished execution, from its row. */
function fromRow(row: ExecutionRow): RecordedSpan[] {
  const ended = iso(row.completedAt ?? new Date());
  const error = row.status === 'failed' && row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null;
  const spans: RecordedSpan[] = [
    {
      spanId: rootSpanId(row.id),
      // A caller's span when it sent a `traceparent` (the run joined its trace).
      parentId: row.traceParentId,
      name: 'execution',
      startedAt: iso(row.createdAt),
      endedAt: ended,
      status: error ? 'error' : 'ok',
      error,
      data: { model: row.model, usage: { inputTokens: row.inputTokens, outputTokens: row.outputTokens } },
    },
  ];
  if (row.startedAt) {
    spans.push({ spanId: queueSpanId(row.id), parentId: rootSpanId(row.id), name: 'queue_wait', startedAt: iso(row.createdAt), endedAt: iso(row.startedAt), status: 'ok', data: {} });
  }
  return spans;
}

interface OpenCall {
  startedAt: string;
  at: number;
  firstTokenMs: number | null;
  /** The messages it was sent (with `traceContent`), as capped JSON. */
  input?: string;
}

function tracePart(db: Db, row: ExecutionRow, agent: AgentRow, model: string, offered: ReadonlyMap<string, OfferedTool>): RunPart {
  const root = rootSpanId(row.id);
  // Content only when the agent asks for it (docs/traces.md, "Content"): serialised as it happens, capped.
  const content = agent.traceContent;
  /** An MCP tool names its server (and the tool as the server lists it). */
  const mcpOf = (name: string): { server?: string; mcpTool?: string } => {
    const mcp = offered.get(name);
    return mcp?.mcpTool !== undefined ? { server: mcp.source, mcpTool: mcp.mcpTool } : {};
  };
  knowAgent(agent.id, agent.name);
  const spans: RecordedSpan[] = [];
  const calls = new Map<number, OpenCall>();
  const tools = new Map<string, { startedAt: string; step: number; name: string; input?: string }>();
  let taken: RecordedSpan[] = [];
  // A run resumed after its pause for approval: the wait, from the pause to the last decision.
  const paused = row.approval;
  if (paused) {
    const decided = paused.calls.flatMap((c) => (c.decision ? [c.decision.decidedAt] : [])).sort();
    // The requests that decided, each once, when they carried a `traceparent`.
    const links = [...new Map(paused.calls.flatMap((c) => (c.decision?.trace ? [[`${c.decision.trace.traceId}-${c.decision.trace.spanId}`, c.decision.trace] as const] : []))).values()];
    spans.push({
      spanId: approvalSpanId(row.id, paused.pausedAt),
      parentId: root,
      name: 'approval_wait',
      startedAt: paused.pausedAt,
      endedAt: decided.at(-1) ?? iso(new Date()),
      status: 'ok',
      data: { step: paused.step, ...(links.length > 0 ? { links } : {}) },
    });
  }
  /** Calls and tools still open when the attempt ends (a cancel, a timeout): ended now, as interrupted. */
  const interrupted = (): RecordedSpan[] => {
    const now = iso(new Date());
    const error = { code: 'interrupted', message: 'The run ended before this call did' };
    const open: RecordedSpan[] = [
      ...[...calls].map(([step, c]): RecordedSpan => ({ spanId: modelSpanId(row.id, step), parentId: root, name: 'model_call', startedAt: c.startedAt, endedAt: now, status: 'error', error, data: { step, model, firstTokenMs: c.firstTokenMs } })),
      ...[...tools].map(([id, t]): RecordedSpan => ({ spanId: toolSpanId(row.id, id), parentId: modelSpanId(row.id, t.step), name: 'tool_call', startedAt: t.startedAt, endedAt: now, status: 'error', error, data: { step: t.step, tool: t.name, toolCallId: id } })),
    ];
    calls.clear();
    tools.clear();
    return open;
  };
  return {
    observe: {
      callStarted(step, call) {
        calls.set(step, { startedAt: iso(new Date()), at: performance.now(), firstTokenMs: null, ...(content ? { input: capped(call.messages) } : {}) });
      },
      firstToken(step) {
        const call = calls.get(step);
        if (call && call.firstTokenMs === null) call.firstTokenMs = Math.round(performance.now() - call.at);
      },
      callEnded(step, end) {
        const call = calls.get(step);
        if (!call) return;
        calls.delete(step);
        spans.push({
          spanId: modelSpanId(row.id, step),
          parentId: root,
          name: 'model_call',
          startedAt: call.startedAt,
          endedAt: iso(new Date()),
          status: end.error ? 'error' : 'ok',
          error: end.error ?? null,
          data: {
            step,
            model,
            firstTokenMs: call.firstTokenMs,
            usage: end.usage,
            finishReason: end.finishReason,
            ...(content
              ? {
                  ...(agent.instructions ? { system: capped(agent.instructions) } : {}),
                  input: call.input,
                  output: capped([{ role: 'assistant', content: end.output.text, ...(end.output.toolCalls.length > 0 ? { toolCalls: end.output.toolCalls } : {}) }]),
                }
              : {}),
          },
        });
      },
      toolStarted(step, call) {
        tools.set(call.id, { startedAt: iso(new Date()), step, name: call.name, ...(content ? { input: capped(call.arguments) } : {}) });
      },
      toolEnded(step, result) {
        const tool = tools.get(result.id);
        if (!tool) return;
        tools.delete(result.id);
        spans.push({
          spanId: toolSpanId(row.id, result.id),
          parentId: modelSpanId(row.id, step),
          name: 'tool_call',
          startedAt: tool.startedAt,
          endedAt: iso(new Date()),
          status: result.isError ? 'error' : 'ok',
          error: result.isError ? { code: 'tool_error', message: toolError(result.result) } : null,
          data: { step, tool: result.name, toolCallId: result.id, ...mcpOf(result.name), ...httpStatusOf(result.result), ...(content ? { input: tool.input, output: capped(result.result) } : {}) },
        });
      },
    },
    atProgress(): StatementPart | undefined {
      // Spans that ended, with the run's next write of events (while the run goes on).
      const ended = spans.splice(0);
      return ended.length > 0 ? written(row, ended) : undefined;
    },
    atFinish(): StatementPart | undefined {
      taken = [...spans.splice(0), ...interrupted()];
      return taken.length > 0 ? written(row, taken) : undefined;
    },
    async settle(finished) {
      // Not written with the end of the attempt (another party ended the run): written on their own.
      const left = [...(finished ? [] : taken), ...spans.splice(0), ...interrupted()];
      taken = [];
      if (left.length === 0) return;
      await db.execute(spansInsert(row.id, row.environment, left));
      exportSpans(runOf(row), left);
    },
  };
}

export const tracesParticipant: RunParticipant = {
  name: 'traces',
  at: (moment, row) => (moment === 'finished' ? written(row, fromRow(row)) : undefined),
  run: ({ db, row, agent, model, tools }) => tracePart(db, row, agent, model, tools),
};
