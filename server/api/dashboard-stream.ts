import type { Actor } from '../modules/actor';
import type { Engine } from '../modules/executions/engine';
import { findExecutionState } from '../modules/executions/service';
import { isFinal } from '../modules/executions/statuses';
import type { Db } from '../../db/client';
import { ApiError, notFound } from '../platform/errors';
import { newId } from '../platform/ids';
import type { StreamGuard } from '../platform/streams/guard';
import { eventStreamResponse } from './sse';

// The dashboard's live view of an execution (the playground, the execution page), for the
// signed-in user: the same Server-Sent Events as GET /v1/executions/:id/stream, written by the
// same writer (sse.ts), as a web Response for a route handler. A session holds at most as many
// open streams as an API key, and they end when the session does (sign-out, sign-out
// everywhere, a password change).

const failure = (err: ApiError) => Response.json(err.toBody(newId('req')), { status: err.status, headers: { ...err.headers, 'Cache-Control': 'no-store' } });

export async function dashboardStream(opts: { db: Db; engine: Engine; streams: StreamGuard; actor: Actor | null; executionId: string; afterSeq: number }): Promise<Response> {
  const { db, engine, streams, actor, executionId, afterSeq } = opts;
  if (!actor) return failure(new ApiError('unauthenticated', 'Sign in to continue'));
  const execution = await findExecutionState(db, actor, executionId);
  if (!execution) return failure(notFound('execution', executionId));
  // A finished execution whose events the client has all seen: 204 tells EventSource not to reconnect.
  const final = isFinal(execution.status);
  if (final && afterSeq >= execution.eventSeq) return new Response(null, { status: 204 });
  let open;
  try {
    const holder = actor.kind === 'user' ? (actor.sessionId ?? actor.userId) : actor.keyId;
    open = await streams.acquire({ kind: actor.kind === 'user' ? 'session' : 'key', id: holder, workspaceId: actor.workspaceId });
  } catch (err) {
    if (err instanceof ApiError) return failure(err);
    throw err;
  }
  return eventStreamResponse((signal) => engine.follow({ executionId, afterSeq, signal, final }), { stop: open.signal, done: () => open.close() });
}
