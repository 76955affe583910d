import type { TraceParent } from '../vocabulary/trace-ids';
import type { Db } from '../../../db/client';
import type { ExecutionTrigger } from '../../../db/schema';
import type { Actor } from '../actor';
import { newId } from '../../platform/ids';
import type { ExecutionPool } from './pool';
import type { ExecuteInput } from './schemas';
import { startExecution } from './service';
import type { ReplayStart } from './replay';
import type { ExecutionRow } from './lifecycle';

// The one entry point that starts an execution, for every face: REST's execute (async, wait,
// stream) and the dashboard's playground. A caller about to follow the run (a wait, a stream,
// the playground's live view) asks for it `inPlace`: when this process runs workers and has a
// free slot, and the workspace may start a run now (admission.ts), the run starts in this
// process in the transaction that creates it, and its events reach this process's streams from
// memory. Otherwise it is queued and a worker's fair claim starts it (pool.ts); either way the
// run's row is its only record of liveness (heartbeat + sweeper: docs/executions.md).

export interface Run {
  /** The execution as created: `running` when it started in place, `queued` otherwise. */
  row: ExecutionRow;
  timeoutSeconds: number;
  /** The run in this process, resolving with the execution as it finished (null: ended by someone else); null when queued. */
  running: Promise<ExecutionRow | null> | null;
  /** A queued turn (`ifBusy: "enqueue"`): the runs ahead of it in its conversation's line. */
  ahead?: number;
}

export async function startRun(
  services: { executions?: ExecutionPool },
  db: Db,
  actor: Pick<Actor, 'workspaceId' | 'environment'>,
  agentId: string,
  input: ExecuteInput,
  opts: { id?: string; inPlace: boolean; trigger?: ExecutionTrigger; keyId?: string; trace?: TraceParent | null; replay?: ReplayStart },
): Promise<Run> {
  const slot = opts.inPlace ? (services.executions?.reserve() ?? null) : null;
  let start: Awaited<ReturnType<typeof startExecution>>;
  try {
    start = await startExecution(db, actor, agentId, input, {
      id: opts.id ?? newId('exe'),
      inline: slot !== null,
      ...(opts.trigger ? { trigger: opts.trigger } : {}),
      ...(opts.keyId ? { keyId: opts.keyId } : {}),
      ...(opts.trace ? { trace: opts.trace } : {}),
      ...(opts.replay ? { replay: opts.replay } : {}),
    });
  } catch (err) {
    slot?.release();
    throw err;
  }
  const { row, timeoutSeconds, started, ahead } = start;
  if (!started) slot?.release();
  return { row, timeoutSeconds, running: started ? slot!.run(started) : null, ...(ahead ? { ahead } : {}) };
}
