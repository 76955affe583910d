import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterEach } from 'node:test';

// Real server processes and CLI runs for the tests that need more than one process, signals, or
// the logs on stdout. Servers and workers run the way `npm start` and `npm run worker` run them:
// server/processes/launch.js, the compiled server (compiled once per version of the sources and
// shared by every process; through tsx, each process spent about 1 s of CPU loading the sources).

export const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The arguments of `node` that run the server (`main`), a worker or the admin CLI, compiled (`npm start`'s way).
 * Under `npm test` they also carry the test runner's `--liftoff-only` (docs/testing.md: PGlite's
 * WebAssembly without V8's optimizing tier, ~3 s less CPU per process that opens PGlite): a code
 * generation flag, the same code running.
 */
export const launchArgs = (entry: 'main' | 'worker' | 'admin') => [
  ...process.execArgv.filter((a) => a === '--liftoff-only'),
  'server/processes/launch.js',
  ...(entry === 'main' ? [] : [entry]),
];

export interface Proc {
  child: ChildProcess;
  url: string;
  output: string;
  /** It logs at `info` or finer: its start-up lines, the "ready" one last, reach `output`. */
  logsInfo?: boolean;
}

const children: ChildProcess[] = [];
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/** The processes started and not stopped (a crashed one stays): their logs explain a failed test. */
const watched = new Set<Proc>();
/** The last lines a failed test's diagnostics carry. */
const LOG_LINES = 20;

// Under the test runner (not the bench, which starts processes too): a failed test's diagnostics
// carry the warnings and errors its processes logged, the last LOG_LINES of them. npm test repeats
// a failure's diagnostics at its end (scripts/test-pool.ts `tapFailures`), where a CI log's tail
// shows them: a run that failed in a worker says why.
if (process.execArgv.some((a) => a === '--test' || a.startsWith('--test-reporter'))) {
  afterEach((t) => {
    if ((t as { passed?: boolean }).passed !== false) return; // Node 24 has it; @types/node's TestContext not yet
    const lines = [...watched].flatMap((p, i) => p.output.split('\n').filter(worthShowing).map((l) => `process ${i + 1}: ${l.slice(0, 600)}`));
    for (const l of lines.slice(-LOG_LINES)) t.diagnostic(l);
  });
}

/** A log line at `warn` or above (pino's levels 40–60), or a line that is not a log line (a crash's stack). */
function worthShowing(line: string): boolean {
  if (line.trim() === '') return false;
  const level = /^\{"level":(\d+)/.exec(line);
  return level ? Number(level[1]) >= 40 : !line.startsWith('{');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The tests' SECRETS_KEY (harness.ts): processes on one database must share one. */
const TEST_SECRETS_KEY = 'dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU=';

/** A process's environment: a value `undefined` is unset (its default). */
type ChildEnv = Record<string, string | undefined>;

function childEnv(env: ChildEnv): NodeJS.ProcessEnv {
  // Production on PostgreSQL requires SECRETS_KEY; a test about its absence passes `SECRETS_KEY: ''`.
  // Headroom off as in harness.ts: these processes share a busy machine with the tests.
  const merged: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', SECRETS_KEY: TEST_SECRETS_KEY, EXECUTION_HEADROOM: '1', ...env };
  delete merged.NODE_TEST_CONTEXT;
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  return merged;
}

/** Starts the server (API only) on a free port with the given environment. */
export async function startProcess(env: ChildEnv): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, launchArgs('main'), {
    cwd: ROOT,
    env: childEnv({ DASHBOARD: 'false', HOST: '127.0.0.1', PORT: String(port), RATE_LIMIT_ANON_PER_MINUTE: '100000', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const level = env.LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info';
  const proc: Proc = { child, url: `http://127.0.0.1:${port}`, output: '', logsInfo: ['info', 'debug', 'trace'].includes(level) };
  child.stdout?.on('data', (c: Buffer) => (proc.output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (proc.output += c.toString()));
  watched.add(proc);
  return proc;
}

export async function waitReady(proc: Proc, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`server exited (${proc.child.exitCode}):\n${proc.output}`);
    const ok = await fetch(`${proc.url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    // Ready, and (when it logs them) its start-up lines received: npm start listens before its
    // database is ready and logs each phase before /readyz answers, but a pipe may deliver the
    // lines after the answer, and tests read them.
    if (ok && (!proc.logsInfo || proc.output.includes('"msg":"ready: '))) return;
    await new Promise((resolve) => setTimeout(resolve, ok ? 10 : 100));
  }
  throw new Error(`server not ready within ${timeoutMs} ms:\n${proc.output}`);
}

/** SIGTERM, then SIGKILL after 5 s; resolves with the exit code (null when killed). */
export async function stop(proc: Proc | undefined): Promise<number | null> {
  if (!proc) return null;
  watched.delete(proc);
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.child.exitCode;
  const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 5_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** Runs the admin CLI; resolves with its exit code and output. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...launchArgs('admin'), ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a worker (job handlers only); resolves once it logged that it started. */
export async function startWorker(env: Record<string, string>, timeoutMs = 60_000): Promise<Proc> {
  const child = spawn(process.execPath, launchArgs('worker'), {
    cwd: ROOT,
    // `info`: the start-up line below is how we know it is up.
    env: childEnv({ ...env, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const proc: Proc = { child, url: '', output: '' };
  watched.add(proc);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker not started within ${timeoutMs} ms:\n${proc.output}`));
    }, timeoutMs);
    const onData = (c: Buffer) => {
      proc.output += c.toString();
      if (proc.output.includes('worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}):\n${proc.output}`));
    });
  });
  return proc;
}

/** A JSON request to a process with a key: its status and parsed body. */
export async function callProcess<T>(origin: string, key: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(origin + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as T };
}

/**
 * A new workspace on `plan` (enterprise: a per-minute limit no test reaches) and a key of it
 * holding every scope, written to the database the processes share, as the admin CLI would.
 */
export async function seedTenant(
  db: import('../db/client').Db,
  opts: { name: string; plan?: import('../db/schema').Plan; customConcurrency?: number | null; environment?: import('../db/schema').Environment },
): Promise<{ key: string; keyId: string; workspaceId: string }> {
  const { createUser, setWorkspacePlan } = await import('../server/modules/auth/users');
  const { createKey } = await import('../server/modules/keys/service');
  const { SCOPES } = await import('../server/modules/vocabulary/scopes');
  const plan = opts.plan ?? 'enterprise';
  const environment = opts.environment ?? 'test';
  const m = await createUser(db, { email: `${opts.name}-${Math.random().toString(36).slice(2)}@example.test` });
  await setWorkspacePlan(db, m.workspaceId, plan, plan === 'enterprise' ? 100_000 : null, opts.customConcurrency ?? null);
  const actor = { kind: 'user' as const, userId: m.userId, role: 'owner' as const, workspaceId: m.workspaceId, environment, scopes: [...SCOPES] };
  const created = await createKey(db, actor, { name: opts.name, environment, scopes: [...SCOPES] });
  return { key: created.key, keyId: created.id, workspaceId: m.workspaceId };
}

/**
 * For the worker that replaces a killed one: heartbeats every second, and its sweeper fails a run
 * without one for 4 s as `worker_lost` (the defaults, 5 s and 25 s, made the tests wait half a
 * minute). Only for that worker: one running 200 runs on a starved CPU missed 4 s of its own
 * heartbeats, and its sweeper failed its own runs.
 */
export const QUICK_LOST_WORKER = { EXECUTION_HEARTBEAT_SECONDS: '1', EXECUTION_LOST_AFTER_SECONDS: '4' } as const;

export interface ScaledOut {
  /** Two web processes (RUN_WORKERS=false) and a worker, on one fresh PostgreSQL database. */
  a: Proc;
  b: Proc;
  worker: Proc;
  /** What the processes were started with (start another worker with it). */
  env: Record<string, string>;
  /** A connection of the test's own to the same database. */
  database: import('../db/client').Database;
  /** Closes the test's connection and drops the database (stop the processes first). */
  close(): Promise<void>;
}

/** The scaled-out topology: 2 web + 1 worker processes on a new PostgreSQL database. */
export async function startScaledOut(extraEnv: Record<string, string>): Promise<ScaledOut> {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const { openDatabase } = await import('../db/client');
  const { createTestDatabase, TEST_AUTH_SECRET } = await import('./harness');
  const pg = await createTestDatabase();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-scaled-'));
  const env = { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET, LOG_LEVEL: 'warn', ...extraEnv };
  const a = await startProcess({ ...env, RUN_WORKERS: 'false' });
  await waitReady(a);
  const b = await startProcess({ ...env, RUN_WORKERS: 'false' });
  const worker = await startWorker(env);
  await waitReady(b);
  const database = await openDatabase({ databaseUrl: pg.url, dataDir: tmp, max: 4 });
  return {
    a,
    b,
    worker,
    env,
    database,
    async close() {
      await database.close();
      await pg.drop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
