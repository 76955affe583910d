// First: on an unsupported Node this says so and exits, before any dependency loads.
import './node-version.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { acquireDataDirLock } from '../../db/lock';
import { ensurePgliteDatabase } from '../../db/pglite-init';
import { env } from '../platform/env.js';
import { createListener } from '../api/http/listener';
import { answerBeforeReady, isStartingPhase, type Dashboard, type Starting } from '../api/http/starting';
import { log } from '../platform/log';
import type { ProcessRuntime } from '../modules/runtime';
import type { BuildState } from './build-check';
import { launchInfo, recordLaunch, startupPhases, type StartupPhases } from './startup';

// `npm start` / `npm run dev`: one process serves the dashboard (Next), /v1 (fast path),
// /healthz and /readyz. DASHBOARD=false serves the API alone (API-only nodes, tests, bench).
// `npm start` is this process alone (no wrapper), so a process manager's SIGTERM reaches it.
//
// It listens first (docs/decisions.md, "Start-up"): the modules imported above are the HTTP
// basics alone, so the port answers a second or so after launch, saying which phase is under way
// (api/http/starting.ts). Then it loads the rest of the code while a new data dir's database is
// made beside it (a copy of the migrated template, whose first build runs in a process of its
// own), opens and migrates the database, serves /v1, and builds and loads the dashboard.

process.env.NEXT_TELEMETRY_DISABLED ??= '1';

// A SIGTERM/SIGINT during start-up is kept and honoured once the step under way ends, so even
// an early stop releases the data dir and leaves nothing running.
let startupSignal: NodeJS.Signals | undefined;
const onStartupSignal = (signal: NodeJS.Signals) => void (startupSignal ??= signal);
process.on('SIGTERM', onStartupSignal);
process.on('SIGINT', onStartupSignal);

async function main() {
  const starting: Starting = { phase: 'database', since: Math.round(performance.timeOrigin) };
  // One line per start-up phase as it ends (startup.ts), the first for loading the code itself;
  // the phase under way is what /healthz says.
  const phases = startupPhases(log, { onStart: (phase) => void (isStartingPhase(phase) && (starting.phase = phase)) });
  recordLaunch(phases);
  const withDashboard = process.env.DASHBOARD !== 'false';
  // The data dir is ours before we listen: a second `npm start` on it says so (db/lock.ts), and
  // the database takes the lock again when it opens. Released at exit whatever happens.
  const releaseDataDir = env.DATABASE_URL ? undefined : acquireDataDirLock(env.DATA_DIR);
  if (releaseDataDir) process.once('exit', releaseDataDir);
  const listener = createListener((req, res) => answerBeforeReady(req, res, starting, withDashboard));
  const server = listener.server;
  const { url, hint, loopback } = await listen(server);
  const data = dataLocation();
  // Where it listens and, on loopback (the default), how to serve other machines.
  const reach = loopback ? ` (this machine only: set HOST=0.0.0.0 to serve others, or put a reverse proxy in front: README, "Behind a reverse proxy")` : hint ? ` (all interfaces; open ${hint})` : '';
  log.info(
    { url, ...data.fields, dashboard: withDashboard, signupMode: env.SIGNUP_MODE, startupMs: phases.sinceProcessStart() },
    `listening on ${url}${reach}, data in ${data.text}; /v1 answers once the database is ready`,
  );
  if (!loopback && env.SIGNUP_MODE === 'open') {
    log.warn({ signupMode: env.SIGNUP_MODE }, `SIGNUP_MODE=open on ${url}: anyone who can reach it may create an account and run agents on this server's model keys (SIGNUP_MODE=invite: by invitation)`);
  }

  // A new data dir's database is made while the rest of the code loads (db/pglite-init.ts).
  const prepared = releaseDataDir ? ensurePgliteDatabase(path.join(env.DATA_DIR, 'pgdata'), { templateDir: env.PGLITE_TEMPLATE_DIR }) : undefined;
  prepared?.catch(() => {}); // awaited, and reported, by the `database` phase
  const loading = performance.now();
  await preloadPackages();
  const [{ openRuntime, closeRuntime, provideAuthSecret, sessionReader }, { createAppHandler }] = await Promise.all([import('./boot'), import('../api/http/server')]);
  phases.record('appCode', 'the rest of the code loaded', performance.now() - loading);
  const runtime = await openRuntime({ phases, prepared });
  releaseDataDir?.(); // the database holds it now
  const stopIfAsked = async () => {
    if (!startupSignal) return;
    await closeServer(server);
    await closeRuntime(runtime);
    log.info({ signal: startupSignal }, 'stopped during start-up');
    process.exit(0);
  };
  await stopIfAsked();
  provideAuthSecret();
  // /v1 answers from here on, while the dashboard is built and loaded (api/http/starting.ts).
  const dashboard: Dashboard | undefined = withDashboard ? { starting: { phase: 'next', since: starting.since } } : undefined;
  listener.serve(createAppHandler({ ...runtime, dashboard, session: dashboard ? sessionReader(runtime) : undefined }));
  log.info(
    { url, rateLimitStore: runtime.limits.store, startupMs: phases.sinceProcessStart() },
    `ready: /v1 answers at ${hint ?? url}${dashboard ? '; the dashboard is starting' : ''}`,
  );
  if (dashboard) {
    // Production serves .next: build it first when it is missing or older than the sources.
    if (env.NODE_ENV === 'production') await buildDashboard(runtime, phases, server, dashboard, closeRuntime);
    await stopIfAsked();
    const dev = env.NODE_ENV === 'development';
    const app = await phases.run('next', dev ? 'Next.js dev server ready' : 'Next.js ready', async () => {
      const [{ preloadNextConfig }, { default: next }] = await Promise.all([import('./build-check'), import('next')]);
      await preloadNextConfig(process.cwd(), dev);
      const app = next({ dev, dir: process.cwd() });
      await app.prepare();
      return app;
    });
    await stopIfAsked();
    dashboard.handler = app.getRequestHandler();
    dashboard.starting = undefined;
    log.info({ url: hint ?? url, startupMs: phases.sinceProcessStart() }, `dashboard ready at ${hint ?? url}`);
  }
  installShutdown(server, () => closeRuntime(runtime));
}

/**
 * The heaviest packages the rest of the code imports (50–150 ms each to load at load 8 on 2
 * cores), each imported on its own with a turn of the event loop after it. Evaluating a module
 * graph blocks the loop: imported in one go, the rest of the code kept /healthz and every other
 * request unanswered for 1.1–2.2 s (the whole `appCode` phase), which made the port answer ~2.5 s
 * after `npm start` instead of ~1 s. Now the longest pause is our own code's (0.3–0.6 s). A package
 * missing here only makes a pause longer; one no longer used is skipped.
 */
const HEAVY_PACKAGES = ['zod', 'undici', 'ai', 'next-auth', 'trpc-to-openapi', 'pg-boss', 'nodemailer', 'ioredis', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/mcp', '@electric-sql/pglite', 'postgres', 'rate-limiter-flexible', 'piscina'];

async function preloadPackages(): Promise<void> {
  for (const pkg of HEAVY_PACKAGES) {
    await import(pkg).catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Listens on HOST:PORT; resolves with the address actually bound. */
async function listen(server: Server): Promise<{ url: string; hint?: string; loopback: boolean }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(env.PORT, env.HOST, () => resolve());
  });
  return listenAddress(server.address() as AddressInfo);
}

/** Stops listening and ends open connections (a stop during start-up: nothing is in flight that matters). */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Builds the dashboard if needed; a SIGTERM/SIGINT during the build stops the build and us cleanly. */
async function buildDashboard(
  runtime: ProcessRuntime,
  phases: StartupPhases,
  server: Server,
  dashboard: Dashboard,
  closeRuntime: (runtime: ProcessRuntime) => Promise<void>,
): Promise<void> {
  const { BuildInterruptedError, ensureBuild, runNextBuild } = await import('./build-check');
  const done = (state: BuildState | 'forced') => (state === 'current' ? 'dashboard build is current' : 'dashboard built');
  try {
    await phases.run('build', done, () => ensureBuild({
      fingerprint: launchInfo()?.fingerprint,
      // Next's output as our JSON lines (build-check.ts), its errors among them.
      build: (root) => runNextBuild(root, { log }),
      onBuild: (state) => {
        dashboard.starting = { phase: 'build', since: dashboard.starting?.since ?? Date.now() };
        log.info(
          state === 'missing'
            ? 'no dashboard build yet: running `next build` first (a minute or two); the page says so meanwhile'
            : 'the sources changed since the last dashboard build: running `next build` first (a minute or two)',
        );
      },
    }));
    if (dashboard.starting) dashboard.starting.phase = 'next';
  } catch (err) {
    await closeServer(server);
    await closeRuntime(runtime).catch(() => {});
    if (err instanceof BuildInterruptedError) {
      log.info({ signal: err.signal }, 'stopped during the dashboard build');
      process.exit(0);
    }
    throw err;
  }
}

/** The address actually bound, a localhost URL to open when that is every interface, and whether only this machine reaches it. */
function listenAddress(address: AddressInfo): { url: string; hint?: string; loopback: boolean } {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const loopback = /^(127\.|::ffff:127\.)/.test(address.address) || address.address === '::1';
  return { url, hint: wildcard ? `http://localhost:${address.port}` : undefined, loopback };
}

/** Where the data lives: the absolute data dir, or PostgreSQL host/database (never the credentials). */
function dataLocation(): { text: string; fields: Record<string, string> } {
  if (!env.DATABASE_URL) {
    const dataDir = path.resolve(env.DATA_DIR);
    return { text: `${dataDir} (embedded PGlite)`, fields: { database: 'pglite', dataDir } };
  }
  const u = new URL(env.DATABASE_URL);
  const host = u.hostname || u.searchParams.get('host') || 'localhost';
  const where = `${host}${u.port ? `:${u.port}` : ''}/${decodeURIComponent(u.pathname.slice(1))}`;
  return { text: `PostgreSQL ${where}`, fields: { database: 'postgres', postgres: where } };
}

/** SIGTERM/SIGINT: stop accepting, let in-flight requests finish (10 s at most), close the database. */
function installShutdown(server: Server, close: () => Promise<void>) {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      close()
        .then(() => {
          log.info('stopped');
          process.exit(0);
        })
        .catch((err) => {
          log.error({ err }, 'error while closing');
          process.exit(1);
        });
    });
    server.closeIdleConnections();
  };
  // Add before removing: a signal's last listener going away drops one received but not yet handled.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.off('SIGTERM', onStartupSignal);
  process.off('SIGINT', onStartupSignal);
  if (startupSignal) stop(startupSignal);
}

main().catch((err: unknown) => {
  // Plain words for what people meet most (the data dir in use: db/lock.ts), no stack trace.
  log.fatal(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
