import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SQL } from 'drizzle-orm';
import postgres from 'postgres';
import type { Database, Db } from '../db/client';
import type { Environment, Plan } from '../db/schema';
import type { Scope } from '../server/modules/vocabulary/scopes';

// One real server per test file: real HTTP on a random port, a real database (a fresh PGlite
// data dir or a freshly created PostgreSQL database), the real rate limiter. server/platform/env.js
// snapshots process.env when first imported, so the env is set before any server module loads,
// and a process (= a test file) gets one server and one database kind.
//
// Fresh databases are copies of one migrated template per set of migrations (see `templateKey`):
// PostgreSQL clones it with CREATE DATABASE … TEMPLATE, PGlite copies its data dir. Migrating
// each file's database from nothing cost 2–3 s per file on PGlite (its initdb), ~0.3 s on PostgreSQL.

export type DbKind = 'pglite' | 'postgres';

/** Which database this run uses: `TEST_DB=postgres`, or PGlite by default. */
export const DB_KIND: DbKind = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

export const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const TEST_AUTH_SECRET = 'test-secret-0123456789-abcdefghijklmnop';
/** SECRETS_KEY of the tests' servers: the processes of one test share it, as production's must. */
export const TEST_SECRETS_KEY = 'dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU=';

const ROOT = path.resolve(import.meta.dirname, '..');
// Any fixed number: one process builds the PostgreSQL template while the others wait.
const TEMPLATE_LOCK = 7_311_402_902;

/**
 * Names the templates: a hash of every file under db/migrations and of the versions of PGlite (its
 * data dir format) and pg-boss (its schema). A template made from other migrations has another
 * name and is never used.
 */
export function templateKey(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else hash.update(`${path.relative(ROOT, p)}\0`).update(fs.readFileSync(p)).update('\0');
    }
  };
  walk(path.join(ROOT, 'db', 'migrations'));
  for (const pkg of ['@electric-sql/pglite', 'pg-boss']) {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string };
    hash.update(`${pkg} ${version}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Applies the migrations to a database or data dir, and lets pg-boss create its schema, as a
 * server's first start does (pg-boss's took ~1 s of each PGlite file's start). The queues are
 * left to each server's start: they are declared in the server's code, not in the key.
 */
async function migrate(opts: { databaseUrl?: string; dataDir: string }): Promise<void> {
  const { openDatabase } = await import('../db/client');
  const { migrateDatabase } = await import('../db/migrate');
  const { PgBoss, fromPglite } = await import('pg-boss');
  const database = await openDatabase({ ...opts, max: 1 });
  try {
    await migrateDatabase(database);
    const quiet = { schedule: false, supervise: false };
    const boss = database.pglite
      ? new PgBoss({ db: fromPglite(database.pglite), backend: 'pglite', ...quiet })
      : new PgBoss({ connectionString: opts.databaseUrl!, max: 1, ...quiet });
    await boss.start();
    await boss.stop({ graceful: false, close: true });
  } finally {
    await database.close();
  }
}

let pgTemplate: Promise<string> | undefined;

/**
 * The migrated PostgreSQL template database, made once: under an advisory lock (test processes
 * start at once), built under another name and renamed when complete, so a build that died
 * half-way is never cloned.
 */
export function postgresTemplate(): Promise<string> {
  pgTemplate ??= (async () => {
    const name = `aas_template_${templateKey()}`;
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
    const exists = async () => (await admin`select 1 from pg_database where datname = ${name}`).length > 0;
    try {
      if (await exists()) return name;
      await admin`select pg_advisory_lock(${TEMPLATE_LOCK})`;
      try {
        if (await exists()) return name;
        const building = `${name}_build`;
        await admin.unsafe(`drop database if exists ${building} with (force)`);
        await admin.unsafe(`create database ${building}`);
        await migrate({ databaseUrl: databaseUrl(building), dataDir: os.tmpdir() });
        // The migration's connections may still be closing on the server's side.
        for (let attempt = 0; ; attempt++) {
          try {
            await admin.unsafe(`alter database ${building} rename to ${name}`);
            break;
          } catch (err) {
            if (attempt >= 50) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        return name;
      } finally {
        await admin`select pg_advisory_unlock(${TEMPLATE_LOCK})`;
      }
    } finally {
      await admin.end({ timeout: 5 });
    }
  })();
  return pgTemplate;
}

let pgliteTemplateDir: Promise<string> | undefined;

/**
 * The migrated PGlite data dir (`<dir>/pgdata`), made once per machine and set of migrations in
 * the temp dir: built in a directory of its own, then renamed into place (atomic; when two
 * processes race, the second keeps the first one's).
 */
export function pgliteTemplate(): Promise<string> {
  pgliteTemplateDir ??= (async () => {
    const dir = path.join(os.tmpdir(), `aas-pglite-template-${templateKey()}`);
    if (fs.existsSync(dir)) return dir;
    const building = fs.mkdtempSync(`${dir}-build-`);
    try {
      await migrate({ dataDir: building });
      fs.rmSync(path.join(building, 'owner.lock'), { force: true });
      fs.renameSync(building, dir);
    } catch (err) {
      fs.rmSync(building, { recursive: true, force: true });
      if (!fs.existsSync(dir)) throw err;
    }
    return dir;
  })();
  return pgliteTemplateDir;
}

/** Puts a migrated PGlite database in `dataDir` (a copy of the template) for a server to open. */
export async function prepareDataDir(dataDir: string): Promise<void> {
  fs.cpSync(path.join(await pgliteTemplate(), 'pgdata'), path.join(dataDir, 'pgdata'), { recursive: true });
}

/**
 * Creates a PostgreSQL database, a clone of the migrated template (`empty`: with nothing in it,
 * for tests of the migrations at start-up); `drop()` removes it (closing its connections first).
 */
export async function createTestDatabase(opts: { empty?: boolean } = {}): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  const template = opts.empty ? undefined : await postgresTemplate();
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(template ? `create database ${name} template ${template}` : `create database ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return {
    url: databaseUrl(name),
    name,
    async drop() {
      const sql = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

/**
 * A migrated database of the kind TEST_DB says, with no server: for tests beside the code that
 * call a module directly. `close()` closes and removes it.
 */
export async function bareTestDatabase(): Promise<{ database: Database; close(): Promise<void> }> {
  const { openDatabase } = await import('../db/client');
  const { migrateDatabase } = await import('../db/migrate');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-bare-'));
  const pg = DB_KIND === 'postgres' ? await createTestDatabase() : undefined;
  if (!pg) await prepareDataDir(dataDir);
  const database = await openDatabase({ dataDir, databaseUrl: pg?.url, max: 2 });
  await migrateDatabase(database);
  // The engine's participants, as boot registers them (a test may run executions on this database).
  (await import('../server/modules/participants')).registerRunParticipants();
  return {
    database,
    async close() {
      await database.close();
      await pg?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; requestId: string };
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  /** The parsed JSON body (or the raw text when it is not JSON). */
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (no Content-Type added unless given in `headers`). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface Workspace {
  id: string;
  userId: string;
  email: string;
}

export interface SeededKey {
  id: string;
  key: string;
  workspace: Workspace;
  environment: Environment;
  scopes: Scope[];
  expiresAt: string | null;
}

export interface SeedKeyOptions {
  workspace?: Workspace;
  environment?: Environment;
  /** Default: every scope. */
  scopes?: Scope[];
  name?: string;
  expiresAt?: string;
  /** Plan of the new workspace when `workspace` is not given. */
  plan?: Plan;
  customRpm?: number;
  /** Executions at once (enterprise only). */
  customConcurrency?: number;
}

/** A plan no test file exhausts: for files whose subject is not the rate limit. */
export const UNLIMITED = { plan: 'enterprise', customRpm: 100_000 } as const satisfies SeedKeyOptions;

export interface TestServer {
  kind: DbKind;
  url: string;
  db: Db;
  /** Rows of a raw SQL query, on either database. */
  query<T>(query: SQL): Promise<T[]>;
  /** The plaintext of a stored secret sealed for `place` (docs/security.md, "Secrets at rest"), opened with the server's keyring. */
  opened(place: string, stored: string): string;
  /** What the process holds (its engine, streams, jobs…), as the server was given it. */
  runtime: import('../server/modules/runtime').ProcessRuntime;
  request<T = ErrorBody>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  seed: {
    workspace(opts?: { plan?: Plan; customRpm?: number; customConcurrency?: number }): Promise<Workspace>;
    setPlan(workspace: Workspace, plan: Plan, customRpm?: number | null, customConcurrency?: number | null): Promise<void>;
    /** A key made as the dashboard or admin CLI makes it (a user actor): how the first key exists. */
    key(opts?: SeedKeyOptions): Promise<SeededKey>;
  };
  close(): Promise<void>;
}

let started = false;

export interface ServerOptions {
  db?: DbKind;
  /** Set for the server (a value `undefined`: unset, its default). */
  env?: Record<string, string | undefined>;
  /** Stands in for Next's request handler (the dashboard face) behind the custom server. */
  next?: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
  /** Serves the dashboard's API (/api/trpc, its event streams) with this reader of the signed-in user (test/dashboard.ts `testSessions`). */
  dashboardSession?: import('../server/api/http/dashboard-api').SessionReader;
  /** The dashboard as `npm start` holds it while starting (api/http/starting.ts); `next` is `{ handler: next }`. */
  dashboard?: import('../server/api/http/starting').Dashboard;
}

/**
 * Several files in one process (TEST_SHARED=1, set by scripts/test-pool.ts for the files whose
 * first line says `shared`, docs/testing.md): they share one server on one database, started
 * by the first file's `startServer()` with the dashboard's API on, each file in workspaces of its
 * own; the server closes when the last of them closes it. Node runs such files'
 * `before` hooks all first and their `after` hooks all last.
 */
const SHARED = process.env.TEST_SHARED === '1';
let shared: { server: Promise<TestServer>; holders: number } | undefined;

export async function startServer(opts: ServerOptions = {}): Promise<TestServer> {
  if (!SHARED) return launchServer(opts);
  const { dashboardSession: _reader, ...other } = opts;
  if (Object.keys(other).length > 0) {
    throw new Error(`startServer: a file marked \`shared\` shares the default server; it takes no ${Object.keys(other).join(', ')} (remove \`shared\` from its first line)`);
  }
  shared ??= { server: import('./dashboard').then(({ testSessions }) => launchServer({ dashboardSession: testSessions() })), holders: 0 };
  shared.holders++;
  const server = await shared.server;
  let closed = false;
  return {
    ...server,
    async close() {
      if (closed) return;
      closed = true;
      if (--shared!.holders === 0) await server.close();
    },
  };
}

async function launchServer(opts: ServerOptions): Promise<TestServer> {
  if (started) throw new Error('startServer: one server per test file (server/platform/env.js reads the environment once)');
  // A server module imported at the top of a test file read the environment before the lines
  // below set it: the server would use the developer's settings (their .data, their database).
  if ((globalThis as Record<symbol, unknown>)[Symbol.for('agent-service.env-read')]) {
    throw new Error('startServer: server/platform/env.js was loaded before it: import server modules inside before(), after startServer (type-only imports are fine)');
  }
  started = true;
  const kind = opts.db ?? DB_KIND;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-test-'));
  const pg = kind === 'postgres' ? await createTestDatabase() : undefined;
  if (kind === 'pglite') await prepareDataDir(tmp);

  delete process.env.DATABASE_URL;
  delete process.env.REDIS_URL;
  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATA_DIR: tmp,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AUTH_SECRET: TEST_AUTH_SECRET,
    SECRETS_KEY: TEST_SECRETS_KEY,
    RATE_LIMIT_ANON_PER_MINUTE: '100000',
    // Headroom off: a test's server shares its loop with the test and a busy machine, where the
    // loop's business says nothing of its tenants (test/executions/headroom.test.ts covers it).
    EXECUTION_HEADROOM: '1',
    // Tests sign up as many users as they like; the sign-up modes' own tests choose theirs, and
    // those of the default (`invite`) set it to undefined (test/signup/).
    SIGNUP_MODE: 'open',
    ...(pg ? { DATABASE_URL: pg.url } : {}),
    ...opts.env,
  });
  for (const [name, value] of Object.entries(opts.env ?? {})) if (value === undefined) delete process.env[name];

  const { openRuntime, closeRuntime } = await import('../server/processes/boot');
  const { createAppServer } = await import('../server/api/http/server');
  const { createUser, setWorkspacePlan } = await import('../server/modules/auth/users');
  const { createKey } = await import('../server/modules/keys/service');
  const { SCOPES } = await import('../server/modules/vocabulary/scopes');
  const { secretsKeyring } = await import('../server/platform/sealed');

  const runtime = await openRuntime().catch(async (err: unknown) => {
    await pg?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  });
  const server = createAppServer({ ...runtime, dashboard: opts.dashboard ?? (opts.next ? { handler: opts.next } : undefined), session: opts.dashboardSession });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = runtime.database.db;

  async function request<T>(method: string, p: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + p, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  async function query<T>(q: SQL): Promise<T[]> {
    const result = (await db.execute(q)) as unknown;
    return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  }

  let users = 0;
  async function workspace(o: { plan?: Plan; customRpm?: number; customConcurrency?: number } = {}): Promise<Workspace> {
    const email = `user${++users}-${randomBytes(3).toString('hex')}@example.test`;
    const m = await createUser(db, { email });
    if (o.plan && (o.plan !== 'starter' || o.customRpm)) await setWorkspacePlan(db, m.workspaceId, o.plan, o.customRpm ?? null, o.customConcurrency ?? null);
    return { id: m.workspaceId, userId: m.userId, email };
  }

  async function key(o: SeedKeyOptions = {}): Promise<SeededKey> {
    const ws = o.workspace ?? (await workspace({ plan: o.plan, customRpm: o.customRpm, customConcurrency: o.customConcurrency }));
    const environment = o.environment ?? 'test';
    const created = await createKey(
      db,
      { kind: 'user', userId: ws.userId, role: 'owner', workspaceId: ws.id, environment, scopes: [...SCOPES] },
      { name: o.name ?? 'seed', environment, scopes: o.scopes ?? [...SCOPES], expiresAt: o.expiresAt },
    );
    return {
      id: created.id,
      key: created.key,
      workspace: ws,
      environment,
      scopes: created.scopes,
      expiresAt: created.expiresAt,
    };
  }

  return {
    kind,
    url,
    db,
    query,
    opened: (place, stored) => secretsKeyring().open(place, stored),
    runtime,
    request,
    seed: {
      workspace,
      key,
      setPlan: (ws, plan, customRpm = null, customConcurrency = null) => setWorkspacePlan(db, ws.id, plan, customRpm, customConcurrency),
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeRuntime(runtime);
      await pg?.drop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Waits until the given ISO time has passed (for expiry tests; no longer than needed). */
export async function waitUntil(iso: string, marginMs = 50): Promise<void> {
  const ms = new Date(iso).getTime() - Date.now() + marginMs;
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}
