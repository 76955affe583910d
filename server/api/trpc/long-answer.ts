import type { ExecutionRow, Watch } from '../../modules/executions/engine';
import { executionView } from '../../modules/executions/engine';
import { ApiError } from '../../platform/errors';
import type { Actor } from '../../modules/actor';
import type { Context } from './init';

/** A procedure's context once its caller is known. */
type Called = Context & { actor: Actor };

// The long answers of the procedures that start or resume a run (execute, replay, approvals):
// `wait: true` answers with the execution once final, `stream: true` with its events. Their meta
// declares them (`eventStream`: the REST edge then offers `ctx.reply`, server/api/rest/
// procedures.ts); this is their one handling: the checks, the stream or wait slot taken before
// anything is written, the terminal event watched before the run can end, what is held freed
// when the start is refused.

export type Long = 'wait' | 'stream';

/** Which long answer the input asks for (409-free: both is 400 `parameter_conflict`; either on the dashboard face, 400). */
export function longAnswerOf(ctx: Context, input: { wait?: boolean | undefined; stream?: boolean | undefined }): Long | null {
  if (input.wait && input.stream) throw new ApiError('parameter_conflict', "'wait' and 'stream' cannot both be true", { param: 'stream' });
  const long = input.wait ? 'wait' : input.stream ? 'stream' : null;
  if (long && !ctx.reply) throw new ApiError('invalid_parameter', `'${long}' is for the REST API: follow the execution’s stream instead`, { param: long });
  return long;
}

/** What `begin` gives back: the execution, and where a stream of it starts (approvals: after the decisions). */
interface Begun {
  row: ExecutionRow;
  afterSeq?: number;
}

/**
 * Runs `begin` (it creates or resumes execution `id`) under the long answer asked for: the key's
 * stream slot or the workspace's wait slot is taken first (a refusal writes nothing), a wait
 * watches for the terminal event before the run exists, and `settle` says what the wait answers.
 */
export async function withLongAnswer<R extends Begun>(
  ctx: Called,
  long: Long | null,
  id: string,
  begin: () => Promise<R>,
  settle: (begun: R, signal: AbortSignal, watch: Watch | undefined) => Promise<ExecutionRow>,
): Promise<R> {
  if (!long) return begin();
  const { actor, reply } = ctx;
  const { engine, streams } = ctx.services;
  const open = long === 'stream' && actor.kind === 'key' ? await streams.acquire({ kind: 'key', id: actor.keyId, workspaceId: actor.workspaceId }) : null;
  const waiting = long === 'wait' ? streams.acquireWait(actor.workspaceId) : null;
  const watch = long === 'wait' ? engine.watch(id) : undefined;
  let begun: R;
  try {
    begun = await begin();
  } catch (err) {
    watch?.close();
    open?.close();
    waiting?.();
    throw err;
  }
  if (open) reply!.stream(begun.row.id, { stop: open.signal, done: open.close, ...(begun.afterSeq ? { afterSeq: begun.afterSeq } : {}) });
  else if (waiting) reply!.wait(begun.row.id, async (signal) => executionView(await settle(begun, signal, watch)), waiting);
  return begun;
}
