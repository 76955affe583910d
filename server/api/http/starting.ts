import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { sendError, sendJson } from '../../platform/http/send';

// The dashboard while the server starts. `npm start` listens as soon as the database is open
// and migrated, then builds the dashboard (the first start: a minute or two on 2 cores) and
// loads Next. Until Next is ready, /v1 answers as usual, /healthz says "starting" (200: the
// process is alive), /readyz 503, a page a browser asks for is a small page that says what is
// happening and reloads itself, and the dashboard's /api/* answers 503 `starting`.

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export type StartingPhase = 'build' | 'next';

/** The dashboard of one server process: Next's handler once ready, what it is doing until then. */
export interface Dashboard {
  handler?: Handler;
  starting?: { phase: StartingPhase; since: number };
}

/** Seconds a browser or client waits before asking again. */
export const STARTING_RETRY_SECONDS = 3;

const SAYS: Record<StartingPhase, string> = {
  build: 'Building the dashboard. The first start takes a minute or two; later starts reuse the build.',
  next: 'Loading the dashboard. It will be ready in a moment.',
};

export function startingMessage(phase: StartingPhase): string {
  return SAYS[phase];
}

/** What /healthz says while the dashboard starts. */
export function startingHealth(starting: NonNullable<Dashboard['starting']>) {
  return { status: 'starting', phase: starting.phase, message: `${SAYS[starting.phase]} /v1 already answers.` };
}

/** A page or /api/* request before the dashboard is ready. */
export function answerStarting(req: IncomingMessage, res: ServerResponse, starting: NonNullable<Dashboard['starting']>): void {
  const retry = { 'Retry-After': String(STARTING_RETRY_SECONDS), 'Cache-Control': 'no-store' };
  const url = req.url ?? '/';
  const page = (req.method === 'GET' || req.method === 'HEAD') && !url.startsWith('/api/') && !url.startsWith('/_next/');
  if (!page) {
    const requestId = newId('req');
    res.setHeader('X-Request-Id', requestId);
    return sendError(res, requestId, new ApiError('starting', `The dashboard is still starting: ${SAYS[starting.phase]}`), retry);
  }
  res.statusCode = 503;
  for (const [name, value] of Object.entries(retry)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(req.method === 'HEAD' ? undefined : startingPage(starting.phase, Math.round((Date.now() - starting.since) / 1000)));
}

/** Plain HTML, no script: it reloads itself every few seconds until the dashboard answers. */
export function startingPage(phase: StartingPhase, seconds: number): string {
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
<main data-testid="starting-page">
  <h1><span class="spin" aria-hidden="true"></span>Starting…</h1>
  <p role="status">${SAYS[phase]}</p>
  <p><small>Started ${seconds} s ago. This page reloads by itself every ${STARTING_RETRY_SECONDS} s. The API under <code>/v1</code> already answers.</small></p>
</main>
</body>
</html>
`;
}

/** /healthz: the process is up; while the dashboard starts, it says so. */
export function answerHealth(res: ServerResponse, dashboard: Dashboard | undefined): void {
  sendJson(res, 200, dashboard?.starting ? startingHealth(dashboard.starting) : { status: 'ok' });
}
