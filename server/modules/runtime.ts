import type { Database } from '../../db/client';
import type { Bus } from '../platform/notify';
import type { Engine } from './executions/engine';
import type { Live } from './executions/live';
import type { ExecutionPool } from './executions/pool';
import type { Jobs } from '../platform/jobs';
import type { Mailer } from '../platform/mail';
import type { RateLimits } from './ratelimit';
import type { StreamGuard } from '../platform/streams/guard';
import type { RequestUsage } from './usage/requests';

// Everything stateful a process holds — the database, the rate-limit stores, the job queue, the
// engine — once per process. Built by processes/boot.ts and handed to the edges that serve
// requests (REST, the dashboard's API) as their context; nothing reaches it from a global. (Next's
// pages and next-auth's route get only the database and the sign-in guards: api/next-handle.ts.)

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
  /** Whether this process serves requests (false: `npm run worker`, whose runs need leave no room for any). */
  requests: boolean;
  /** Invitation mail (SMTP_URL), or null when it is off. */
  mail?: Mailer | null;
}

/** What a request may use of its process, given in its context (never reached for from a global). */
export type Services = Pick<ProcessRuntime, 'jobs' | 'bus' | 'live' | 'streams' | 'executions' | 'engine' | 'mail'>;
