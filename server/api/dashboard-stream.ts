import type { ServerResponse } from 'node:http';
import type { UserActor } from '../modules/actor';
import type { Engine } from '../modules/executions/engine';
import { findExecutionState } from '../modules/executions/service';
import { isFinal } from '../modules/vocabulary/statuses';
import type { Db } from '../../db/client';
import { ApiError, notFound } from '../platform/errors';
import { sendError } from '../platform/http/send';
import { newId } from '../platform/ids';
import type { StreamGuard } from '../platform/streams/guard';
import { writeEventsTo } from './sse';

// The dashboard's live view of an execution (the playground, the execution page), for the
// signed-in user: the same Server-Sent Events as GET /v1/executions/:id/stream, written by the
// same writer (sse.ts). A session holds at most as many open streams as an API key, and they
// end when the session does (sign-out, sign-out everywhere, a password change).

const NO_STORE = { 'Cache-Control': 'no-store' };

export async function dashboardStream(
  res: ServerResponse,
  opts: { db: Db; engine: Engine; streams: StreamGuard; actor: UserActor | null; executionId: string; afterSeq: number },
): Promise<void> {
  const { db, engine, streams, actor, executionId, afterSeq } = opts;
  const fail = (err: ApiError) => sendError(res, newId('req'), err, NO_STORE);
  if (!actor) return fail(new ApiError('unauthenticated', 'Sign in to continue'));
  const execution = await findExecutionState(db, actor, executionId);
  if (!execution) return fail(notFound('execution', executionId));
  // A finished execution whose events the client has all seen: 204 tells EventSource not to reconnect.
  const final = isFinal(execution.status);
  if (final && afterSeq >= execution.eventSeq) {
    res.writeHead(204, NO_STORE);
    return void res.end();
  }
  let open;
  try {
    open = await streams.acquire({ kind: 'session', id: actor.sessionId || actor.userId, workspaceId: actor.workspaceId });
  } catch (err) {
    if (err instanceof ApiError) return fail(err);
    throw err;
  }
  try {
    await writeEventsTo(res, (signal) => engine.follow({ executionId, afterSeq, signal, final }), open.signal);
  } finally {
    open.close();
  }
}
