import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { ApiError } from '../../platform/errors';
import type { SchemaResult, SchemaTask } from './schema-worker';

// JSON Schema work off the event loop (docs/security.md, "Schemas are compiled off the event
// loop"): compiling a tool's `parameters` at create/update and checking a model's arguments
// against them before a call both run in schema-worker.ts, on a pool of worker threads
// (piscina: its abort terminates a running task's thread and starts a fresh one).
// - Each task has a hard budget of running time (the wait before it starts is not counted);
//   past it the thread is terminated and the schema refused, or the call not made.
// - At most `threads` tasks are in the pool at once. The others wait in their workspace's own
//   line (at most 64 a workspace and 1,024 in all, beyond: `busy`) and lines are served in
//   turn, so a workspace with a backlog delays another's next task by at most one task per
//   busy workspace.
// - Each thread caches its validators by the hash of the schema's canonical JSON, so a run
//   does not compile again what create compiled, nor a re-saved agent.
// The pool lives on globalThis: Next evaluates this module more than once per process.

export type SchemaOutcome =
  | { ok: true }
  /** ajv's or RE2's message: the schema does not compile, or the arguments do not match it. */
  | { ok: false; reason: 'invalid'; message: string }
  /** The task ran past its budget (or out of the thread's memory) and was stopped. */
  | { ok: false; reason: 'too_slow' }
  /** The workspace has too many tasks waiting already. */
  | { ok: false; reason: 'busy' };

/** Running time one compile or validation may take. */
export const SCHEMA_BUDGET_MS = 1_000;
/** Tasks one workspace may have waiting for a thread. */
export const MAX_WAITING_PER_WORKSPACE = 64;
/** Tasks all workspaces together may have waiting (the memory they hold stays bounded). */
export const MAX_WAITING = 1_024;
/** Threads: the cores but one, which stays with the event loop (1 to 4). */
export const SCHEMA_THREADS = Math.min(4, Math.max(1, availableParallelism() - 1));
/** Heap of one thread; a schema that needs more is refused like one that takes too long. */
const THREAD_HEAP_MB = 256;
/** Threads run below the event loop's priority (nice +5, Linux and macOS): a compile never takes the loop's core from it. */
const THREAD_NICE = 5;

interface Queued {
  task: SchemaTask;
  signal?: AbortSignal;
  settle: (outcome: Promise<SchemaOutcome>) => void;
}

interface State {
  pool: Piscina;
  budgetMs: number;
  /** Tasks handed to the pool and not finished. */
  running: number;
  /** Waiting tasks per workspace; the Map's order is the turn. */
  lines: Map<string, Queued[]>;
  /** Tasks in all lines. */
  waiting: number;
}

const KEY = Symbol.for('agent-service.schema-pool');

/**
 * The worker is TypeScript, loaded through tsx: threads inherit the process's options (its
 * `--import tsx` under `npm run dev` and the tests), but `npm start` runs the server compiled,
 * without tsx (launch.js), so there the threads are given it. (Only that: V8 flags such as
 * `--max-semi-space-size` may be inherited but not passed to a thread.)
 */
const WORKER_EXEC_ARGV = process.execArgv.some((arg) => /\btsx\b/.test(arg)) ? undefined : ['--import', 'tsx'];

function state(): State {
  const g = globalThis as unknown as Record<symbol, State | undefined>;
  return (g[KEY] ??= {
    // cwd, like db/migrate.ts: this module may run from a Next bundle, where import.meta.url is not its file.
    pool: new Piscina({
      filename: path.resolve(process.cwd(), 'server/modules/tools/schema-worker.ts'),
      execArgv: WORKER_EXEC_ARGV,
      minThreads: 0,
      maxThreads: SCHEMA_THREADS,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
      niceIncrement: THREAD_NICE,
    }),
    budgetMs: SCHEMA_BUDGET_MS,
    running: 0,
    lines: new Map(),
    waiting: 0,
  });
}

/** Lowers (or restores, with null) the budget, for tests of what happens past it. */
export function setSchemaBudgetForTests(ms: number | null): void {
  state().budgetMs = ms ?? SCHEMA_BUDGET_MS;
}

/** Runs one task in the pool under the budget, counted from when it starts in its thread. */
async function runTimed(s: State, task: SchemaTask, signal?: AbortSignal): Promise<SchemaOutcome> {
  const stop = new AbortController();
  let timer: NodeJS.Timeout;
  const watch = () => {
    const started = Number(Atomics.load(task.started, 0));
    const left = started === 0 ? s.budgetMs : started + s.budgetMs - Date.now();
    if (started !== 0 && left <= 0) stop.abort();
    else timer = setTimeout(watch, left);
  };
  timer = setTimeout(watch, s.budgetMs);
  try {
    const result: SchemaResult = await s.pool.run(task, { signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal });
    // Past the budget, however it ended: the timer above runs on the event loop and may fire late when the loop is busy.
    if (result.ms > s.budgetMs) return { ok: false, reason: 'too_slow' };
    return result.ok ? { ok: true } : { ok: false, reason: 'invalid', message: result.message };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (stop.signal.aborted || (err as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') return { ok: false, reason: 'too_slow' };
    throw err;
  } finally {
    clearTimeout(timer!);
  }
}

/** Hands waiting tasks to the pool while a thread is free, one workspace's line after another. */
function pump(s: State): void {
  while (s.running < SCHEMA_THREADS && s.lines.size > 0) {
    const [owner, line] = s.lines.entries().next().value!;
    const next = line.shift()!;
    s.waiting--;
    s.lines.delete(owner);
    if (line.length > 0) s.lines.set(owner, line); // to the back of the turn
    s.running++;
    const done = runTimed(s, next.task, next.signal);
    next.settle(done);
    void done
      .catch(() => undefined)
      .finally(() => {
        s.running--;
        pump(s);
      });
  }
}

async function submit(owner: string, kind: SchemaTask['kind'], schema: Record<string, unknown>, args: unknown, signal?: AbortSignal): Promise<SchemaOutcome> {
  signal?.throwIfAborted();
  const s = state();
  const line = s.lines.get(owner) ?? [];
  if (line.length >= MAX_WAITING_PER_WORKSPACE || s.waiting >= MAX_WAITING) return { ok: false, reason: 'busy' };
  const task: SchemaTask = { kind, schema, args, started: new BigInt64Array(new SharedArrayBuffer(8)) };
  return new Promise<SchemaOutcome>((resolve, reject) => {
    const queued: Queued = {
      task,
      signal,
      settle: (outcome) => {
        signal?.removeEventListener('abort', onAbort);
        outcome.then(resolve, reject);
      },
    };
    // Aborted while waiting (the execution was cancelled): out of the line at once.
    const onAbort = () => {
      const waiting = s.lines.get(owner);
      const at = waiting?.indexOf(queued) ?? -1;
      if (at < 0) return;
      waiting!.splice(at, 1);
      s.waiting--;
      if (waiting!.length === 0) s.lines.delete(owner);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    line.push(queued);
    s.waiting++;
    s.lines.set(owner, line);
    pump(s);
  });
}

/** Compiles a tool's parameters schema for `owner` (a workspace id). */
export function compileSchema(owner: string, schema: Record<string, unknown>): Promise<SchemaOutcome> {
  return submit(owner, 'compile', schema, undefined);
}

/**
 * Compiles `schema` for `owner` and throws what a request is told when it does not compile: 400
 * `invalid_parameter` on `param` (too slow, or ajv's message), or 429 when the workspace has too
 * many schemas waiting. For every schema a request gives (a tool's parameters, a scorer's schema).
 */
export async function assertCompiles(owner: string, schema: Record<string, unknown>, param: string): Promise<void> {
  const outcome = await compileSchema(owner, schema);
  if (outcome.ok) return;
  switch (outcome.reason) {
    case 'too_slow':
      throw new ApiError('invalid_parameter', `'${param}' took longer than ${SCHEMA_BUDGET_MS / 1000} s to compile; make the schema simpler`, { param });
    case 'busy':
      throw new ApiError('rate_limit_exceeded', 'Too many JSON Schemas of this workspace are waiting to be compiled; retry in a second', { headers: { 'Retry-After': '1' } });
    case 'invalid': {
      const reason = outcome.message;
      throw new ApiError('invalid_parameter', `'${param}' is not a valid JSON Schema: ${reason.length > 300 ? `${reason.slice(0, 300)}…` : reason}`, { param });
    }
  }
}

/** Checks a model's arguments against the tool's schema (compiled in the thread on first use). */
export function validateArguments(owner: string, schema: Record<string, unknown>, args: unknown, signal?: AbortSignal): Promise<SchemaOutcome> {
  return submit(owner, 'validate', schema, args, signal);
}
