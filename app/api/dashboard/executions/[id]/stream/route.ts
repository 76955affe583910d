import { cookies } from 'next/headers';
import { ENVIRONMENT_COOKIE } from '@/app/_lib/environment';
import { actorFromSession, currentSession, parseEnvironment } from '@/server/auth/session';
import { ApiError, notFound } from '@/server/errors';
import { findExecution } from '@/server/executions/service';
import { isFinal } from '@/server/executions/status';
import { eventStreamResponse } from '@/server/executions/stream';
import { newId } from '@/server/ids';
import { getDatabase, getRuntime } from '@/server/runtime';

// The dashboard's live view of an execution (the playground, the execution page): the same
// Server-Sent Events as GET /v1/executions/:id/stream, for the signed-in user. EventSource
// cannot send headers, so the environment comes as `?environment=` (else the dashboard's
// environment cookie), and a resumed stream names its last event in `Last-Event-ID` (or `?after=`).

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const failure = (err: ApiError) => Response.json(err.toBody(newId('req')), { status: err.status, headers: { 'Cache-Control': 'no-store' } });

/** The sequence number to resume after: a non-negative integer, else 0 (from the start). */
function afterSeq(req: Request, url: URL): number {
  const raw = req.headers.get('last-event-id') ?? url.searchParams.get('after') ?? '';
  return /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
}

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const [{ id }, session, jar, { db }] = await Promise.all([params, currentSession(), cookies(), getDatabase()]);
  const url = new URL(req.url);
  const environment = parseEnvironment(url.searchParams.get('environment') ?? jar.get(ENVIRONMENT_COOKIE)?.value);
  const actor = actorFromSession(session, environment);
  if (!actor) return failure(new ApiError('unauthenticated', 'Sign in to continue'));

  const execution = await findExecution(db, actor, id);
  if (!execution) return failure(notFound('execution', id));

  const after = afterSeq(req, url);
  // A finished execution whose events the client has all seen: 204 tells EventSource not to reconnect.
  if (isFinal(execution.status) && after >= execution.eventSeq) return new Response(null, { status: 204 });

  const response = eventStreamResponse({ db, bus: getRuntime().bus, executionId: id, afterSeq: after });
  // no-transform: no compression layer may buffer the events.
  response.headers.set('Cache-Control', 'no-store, no-transform');
  return response;
}
