import next from 'next';
import type { Server } from 'node:http';
import { closeRuntime, describeStartupError, openRuntime, provideAuthSecret } from './boot';
import { env } from './env.js';
import { createAppServer } from './http';
import { log } from './log';

// `npm start` / `npm run dev`: one process serves the dashboard (Next), /v1 (fast path),
// /healthz and /readyz. DASHBOARD=false serves the API alone (API-only nodes, tests, bench).
async function main() {
  const runtime = await openRuntime();
  provideAuthSecret();
  let nextHandler;
  if (process.env.DASHBOARD !== 'false') {
    const app = next({ dev: env.NODE_ENV === 'development', dir: process.cwd() });
    await app.prepare();
    nextHandler = app.getRequestHandler();
  }
  const server = createAppServer({ ...runtime, next: nextHandler });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(env.PORT, env.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  log.info(
    { port, database: runtime.database.kind, rateLimitStore: runtime.limits.store, dashboard: !!nextHandler },
    `listening on http://localhost:${port}`,
  );
  installShutdown(server, () => closeRuntime(runtime));
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
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  log.fatal(describeStartupError(err));
  process.exit(1);
});
