import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { sendError, sendJson } from '../../platform/http/send';

// The server while it starts (docs/decisions.md, "Start-up"). `npm start` listens first, then
// opens the database (a new data dir is a copy of the migrated template; the first on a machine
// builds that template) and applies the migrations: meanwhile /healthz says which phase is under
// way (200: the process is alive), /readyz and /v1 answer 503 with `Retry-After`, and a page a
// browser asks for is a small page that says what is happening and reloads itself. Then /v1
// answers, and the dashboard is built (the first start: a minute or two on 2 cores) and loaded;
// until Next is ready, the pages say so and the dashboard's /api/* answers 503 `starting`.

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** The start-up phases a client may see, named as the start-up log names them (server/processes/startup.ts). */
export type StartingPhase = 'database' | 'migrations' | 'secrets' | 'rateLimits' | 'jobs' | 'workers' | 'build' | 'next';

export interface Starting {
  phase: StartingPhase;
  /** When the process started (ms since the epoch). */
  since: number;
}

/** The dashboard of one server process: Next's handler once ready, what it is doing until then. */
export interface Dashboard {
  handler?: Handler;
  starting?: Starting;
}

/** Seconds a browser or client waits before asking again. */
export const STARTING_RETRY_SECONDS = 3;

const SAYS: Record<StartingPhase, string> = {
  database: 'Preparing the database. A new data directory is a copy of a migrated template (a few seconds); the first on this machine builds that template (10–40 s).',
  migrations: 'Applying the database migrations.',
  secrets: 'Checking the stored secrets.',
  rateLimits: 'Connecting the rate-limit store.',
  jobs: 'Starting the job queue.',
  workers: 'Starting the workers.',
  build: 'Building the dashboard. The first start takes a minute or two; later starts reuse the build.',
  next: 'Loading the dashboard. It will be ready in a moment.',
};

const STARTING_PHASES = new Set(Object.keys(SAYS));
export const isStartingPhase = (phase: string): phase is StartingPhase => STARTING_PHASES.has(phase);

/** Whether /v1 answers in this phase: once the database is ready, while the dashboard starts. */
const apiAnswers = (phase: StartingPhase) => phase === 'build' || phase === 'next';
const aboutApi = (phase: StartingPhase) => (apiAnswers(phase) ? '/v1 already answers.' : '/v1 answers once the database is ready.');

export function startingMessage(phase: StartingPhase): string {
  return SAYS[phase];
}

/** What /healthz says while the server starts. */
export function startingHealth(starting: Starting) {
  return { status: 'starting', phase: starting.phase, message: `${SAYS[starting.phase]} ${aboutApi(starting.phase)}` };
}

const retryHeaders = { 'Retry-After': String(STARTING_RETRY_SECONDS), 'Cache-Control': 'no-store' };

/** 503 `starting` in the error envelope, with Retry-After. */
function refuse(res: ServerResponse, message: string): void {
  const requestId = newId('req');
  res.setHeader('X-Request-Id', requestId);
  sendError(res, requestId, new ApiError('starting', message), retryHeaders);
}

/**
 * Every request before the database is ready (the server has only just begun to listen):
 * /healthz says the phase, /readyz is 503, /v1 is 503 `starting`, and the rest is the
 * dashboard's "Starting…" answer (or 503 `starting` on a server without a dashboard).
 */
export function answerBeforeReady(req: IncomingMessage, res: ServerResponse, starting: Starting, dashboard: boolean): void {
  const url = req.url ?? '/';
  if (url === '/healthz') return sendJson(res, 200, startingHealth(starting));
  if (url === '/readyz') return sendJson(res, 503, { status: 'not_ready', phase: starting.phase, reason: SAYS[starting.phase] }, { 'Cache-Control': 'no-store' });
  if (url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?') || !dashboard) {
    return refuse(res, `The server is starting: ${SAYS[starting.phase]} Retry after ${STARTING_RETRY_SECONDS} s.`);
  }
  answerStarting(req, res, starting);
}

/** A page or /api/* request before the dashboard is ready. */
export function answerStarting(req: IncomingMessage, res: ServerResponse, starting: Starting): void {
  const url = req.url ?? '/';
  const page = (req.method === 'GET' || req.method === 'HEAD') && !url.startsWith('/api/') && !url.startsWith('/_next/');
  if (!page) {
    const what = apiAnswers(starting.phase) ? 'The dashboard is still starting' : 'The server is starting';
    return refuse(res, `${what}: ${SAYS[starting.phase]}`);
  }
  res.statusCode = 503;
  for (const [name, value] of Object.entries(retryHeaders)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(req.method === 'HEAD' ? undefined : startingPage(starting.phase, Math.round((Date.now() - starting.since) / 1000)));
}

/** Plain HTML, no script: it reloads itself every few seconds until the dashboard answers. */
export function startingPage(phase: StartingPhase, seconds: number): string {
  const api = apiAnswers(phase) ? 'The API under <code>/v1</code> already answers.' : 'The API under <code>/v1</code> answers once the database is ready.';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${STARTING_RETRY_SECONDS}">
<title>Starting · Agent Automation Service</title>
<style>
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f8fafc; color: #0f172a;
    font: 16px/1.5 ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif; }
  main { max-width: 28rem; margin: 1.5rem; padding: 2rem; background: #fff; border: 1px solid #e2e8f0; border-radius: .75rem; }
  h1 { margin: 0 0 .5rem; font-size: 1.25rem; display: flex; align-items: center; gap: .75rem; }
  p { margin: .5rem 0 0; color: #475569; }
  small { color: #64748b; }
  .spin { width: 1rem; height: 1rem; border: 2px solid #c7d2fe; border-top-color: #4f46e5; border-radius: 50%;
    animation: spin 1s linear infinite; flex: none; }
  @keyframes spin { to { transform: rotate(360deg); } }
  @media (prefers-reduced-motion: reduce) { .spin { animation: none; } }
</style>
</head>
<body>
<main data-testid="starting-page" data-phase="${phase}">
  <h1><span class="spin" aria-hidden="true"></span>Starting…</h1>
  <p role="status">${SAYS[phase]}</p>
  <p><small>Started ${seconds} s ago. This page reloads by itself every ${STARTING_RETRY_SECONDS} s. ${api}</small></p>
</main>
</body>
</html>
`;
}

/** /healthz: the process is up; while the dashboard starts, it says so. */
export function answerHealth(res: ServerResponse, dashboard: Dashboard | undefined): void {
  sendJson(res, 200, dashboard?.starting ? startingHealth(dashboard.starting) : { status: 'ok' });
}
