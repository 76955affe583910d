import { cookies } from 'next/headers';
import { ENVIRONMENT_COOKIE } from '@/app/_lib/environment';
import { dashboardStream } from '@/server/api/dashboard-stream';
import { actorFromSession, currentSession, parseEnvironment } from '@/server/modules/auth/session';
import { getRuntime } from '@/server/modules/runtime';

// The dashboard's live view of an execution (server/api/dashboard-stream.ts). EventSource
// cannot send headers, so the environment comes as `?environment=` (else the dashboard's
// environment cookie), and a resumed stream names its last event in `Last-Event-ID` (or `?after=`).

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The sequence number to resume after: a non-negative integer, else 0 (from the start). */
function afterSeq(req: Request, url: URL): number {
  const raw = req.headers.get('last-event-id') ?? url.searchParams.get('after') ?? '';
  return /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
}

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const [{ id }, session, jar] = await Promise.all([params, currentSession(), cookies()]);
  const url = new URL(req.url);
  const environment = parseEnvironment(url.searchParams.get('environment') ?? jar.get(ENVIRONMENT_COOKIE)?.value);
  const { database, engine, streams } = getRuntime();
  return dashboardStream({ db: database.db, engine, streams, actor: actorFromSession(session, environment), executionId: id, afterSeq: afterSeq(req, url) });
}
