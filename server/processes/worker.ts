// First: on an unsupported Node this says so and exits, before any dependency loads.
import './node-version.js';
import { closeRuntime, describeStartupError, openRuntime } from './boot';
import { env } from '../platform/env.js';
import { log } from '../platform/log';
import { recordLaunch, startupPhases } from './startup';

// `npm run worker`: a process that only runs job handlers (scale-out: web processes then run
// with RUN_WORKERS=false). It needs PostgreSQL: in embedded mode the one server process owns
// the data dir and runs the workers itself.

async function main() {
  if (!env.DATABASE_URL) {
    log.fatal('npm run worker needs DATABASE_URL: in embedded mode the server runs the workers itself (RUN_WORKERS=true)');
    process.exit(1);
  }
  const phases = startupPhases(log);
  recordLaunch(phases);
  const runtime = await openRuntime({ workers: true, requests: false, phases });
  const where = new URL(env.DATABASE_URL);
  log.info({ postgres: `${where.hostname}${where.port ? `:${where.port}` : ''}${where.pathname}`, startupMs: phases.sinceProcessStart() }, 'worker started');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker shutting down: letting running jobs finish');
    closeRuntime(runtime)
      .then(() => {
        log.info('worker stopped');
        process.exit(0);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'error while stopping the worker');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  log.fatal(describeStartupError(err));
  process.exit(1);
});
