import type { Database } from '../../db/client';
import type { Bus } from '../platform/notify';
import type { Engine } from './executions/engine';
import type { Live } from './executions/live';
import type { ExecutionPool } from './executions/pool';
import type { Jobs } from '../platform/jobs';
import type { RateLimits } from './ratelimit';
import type { StreamGuard } from '../platform/streams/guard';
import type { RequestUsage } from './usage/requests';

// Everything stateful a process holds — the database, the rate-limit stores, the job queue —
// once per process (the logger keeps a slot of its own: platform/log.ts). Next evaluates our
// modules several times in one process (the custom server, route-handler chunks, page chunks:
// docs/platform-notes.md), so a module-level `let` would exist once per copy; this lives on
// globalThis, which exists once. Built and set by processes/boot.ts; declared here, with the
// domain, because the domain (auth/options.ts), the api and app/ read it.

export interface ProcessRuntime {
  database: Database;
  limits: RateLimits;
  /** The job queue: every process sends jobs; processes with workers also run them. */
  jobs: Jobs;
  /** Cross-process signals (LISTEN/NOTIFY): execution events and cancels. */
  bus: Bus;
  /** The live events of executions this process streams or runs (one tail per execution). */
  live: Live;
  /** Open event streams: the per-key and per-session limits, and ending them on revocation. */
  streams: StreamGuard;
  /** API request usage counted by this process, flushed every few seconds (usage analytics). */
  usage: RequestUsage;
  /** The one face of executions: start, cancel, wait for and follow runs (executions/engine.ts). */
  engine: Engine;
  /** The executions this process runs (when it runs workers). */
  executions?: ExecutionPool;
  /** Stops this process's worker timers (the worker_lost sweeper); set when it runs workers. */
  stopWorkers?: () => Promise<void>;
  /** Whether this process runs job handlers (RUN_WORKERS, or `npm run worker`). */
  workers: boolean;
}

/** What a request may use of its process, given in its context (never reached for from a global). */
export type Services = Pick<ProcessRuntime, 'jobs' | 'bus' | 'live' | 'streams' | 'executions' | 'engine'>;

interface Slots {
  runtime?: ProcessRuntime;
}

const KEY = Symbol.for('agent-service.runtime');

function slots(): Slots {
  const g = globalThis as unknown as Record<symbol, Slots | undefined>;
  return (g[KEY] ??= {});
}

export function setRuntime(runtime: ProcessRuntime | undefined): void {
  slots().runtime = runtime;
}

/** The runtime the server, worker or test opened at start-up (undefined before that). */
export function peekRuntime(): ProcessRuntime | undefined {
  return slots().runtime;
}

export function getRuntime(): ProcessRuntime {
  const runtime = slots().runtime;
  if (!runtime) throw new Error('The process runtime is not open: the server or worker opens it at start-up');
  return runtime;
}

/** The process's database, for code that runs inside Next (pages, route handlers, next-auth). */
export const getDatabase = async (): Promise<Database> => getRuntime().database;

