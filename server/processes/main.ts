// First: on an unsupported Node this says so and exits, before any dependency loads.
import './node-version.js';
import next from 'next';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { closeRuntime, describeStartupError, openRuntime, provideAuthSecret, sessionReader } from './boot';
import { BuildInterruptedError, ensureBuild, preloadNextConfig } from './build-check';
import { env } from '../platform/env.js';
import { createAppServer } from '../api/http/server';
import type { Dashboard } from '../api/http/starting';
import { log } from '../platform/log';
import type { ProcessRuntime } from '../modules/runtime';
import { launchInfo, recordLaunch, startupPhases, type StartupPhases } from './startup';

// `npm start` / `npm run dev`: one process serves the dashboard (Next), /v1 (fast path),
// /healthz and /readyz. DASHBOARD=false serves the API alone (API-only nodes, tests, bench).
// `npm start` is this process alone (no wrapper), so a process manager's SIGTERM reaches it.

process.env.NEXT_TELEMETRY_DISABLED ??= '1';

// A SIGTERM/SIGINT during start-up is kept and honoured once the step under way ends, so even
// an early stop releases the data dir and leaves nothing running.
let startupSignal: NodeJS.Signals | undefined;
const onStartupSignal = (signal: NodeJS.Signals) => void (startupSignal ??= signal);
process.on('SIGTERM', onStartupSignal);
process.on('SIGINT', onStartupSignal);

async function main() {
  // One line per start-up phase as it ends (startup.ts), the first for loading the code itself.
  const phases = startupPhases(log);
  recordLaunch(phases);
  const runtime = await openRuntime({ phases });
  const listening: { server?: Server } = {};
  const stopIfAsked = async () => {
    if (!startupSignal) return;
    if (listening.server) await closeServer(listening.server);
    await closeRuntime(runtime);
    log.info({ signal: startupSignal }, 'stopped during start-up');
    process.exit(0);
  };
  await stopIfAsked();
  provideAuthSecret();
  // The server listens as soon as the database is ready: /v1 answers while the dashboard is
  // built and loaded, and a browser sees a page that says so (api/http/starting.ts).
  const dashboard: Dashboard | undefined =
    process.env.DASHBOARD !== 'false' ? { starting: { phase: 'next', since: Date.now() } } : undefined;
  const server = createAppServer({ ...runtime, dashboard, session: dashboard ? sessionReader(runtime) : undefined });
  listening.server = server;
  const { url, hint, loopback } = await listen(server);
  const data = dataLocation();
  // Where it listens and, on loopback (the default), how to serve other machines.
  const reach = loopback ? ` (this machine only: set HOST=0.0.0.0 to serve others, or put a reverse proxy in front: README, "Behind a reverse proxy")` : hint ? ` (all interfaces; open ${hint})` : '';
  log.info(
    { url, ...data.fields, rateLimitStore: runtime.limits.store, dashboard: !!dashboard, signupMode: env.SIGNUP_MODE, startupMs: phases.sinceProcessStart() },
    `listening on ${url}${reach}, data in ${data.text}${dashboard ? '; the dashboard is starting' : ''}`,
  );
  if (!loopback && env.SIGNUP_MODE === 'open') {
    log.warn({ signupMode: env.SIGNUP_MODE }, `SIGNUP_MODE=open on ${url}: anyone who can reach it may create an account and run agents on this server's model keys (SIGNUP_MODE=invite: by invitation)`);
  }
  if (dashboard) {
    // Production serves .next: build it first when it is missing or older than the sources.
    if (env.NODE_ENV === 'production') await buildDashboard(runtime, phases, server, dashboard);
    await stopIfAsked();
    const dev = env.NODE_ENV === 'development';
    const app = await phases.run('next', dev ? 'Next.js dev server ready' : 'Next.js ready', async () => {
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
async function buildDashboard(runtime: ProcessRuntime, phases: StartupPhases, server: Server, dashboard: Dashboard): Promise<void> {
  const done = (state: Awaited<ReturnType<typeof ensureBuild>>) => (state === 'current' ? 'dashboard build is current' : 'dashboard built');
  try {
    await phases.run('build', done, () => ensureBuild({
      fingerprint: launchInfo()?.fingerprint,
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

main().catch((err) => {
  log.fatal(describeStartupError(err));
  process.exit(1);
});
