import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { MIGRATION_LOCK } from '../db/migrate';
import { templateKey } from '../db/pglite-template';
import { createTestDatabase, DB_KIND, pgliteTemplate, TEST_AUTH_SECRET, TEST_SECRETS_KEY } from './harness';
import { freePort, ROOT, waitReady, type Proc } from './processes';
import { eventually, until } from './eventually';

// `npm start` listens before its database is ready (issue 44, item 1; docs/decisions.md,
// "Start-up"): the port answers within a second or two while the database is made and migrated,
// /healthz naming the phase, /readyz and /v1 503 with Retry-After in the error envelope, a page
// the "Starting…" page; then it serves as usual. The test holds the server in that phase the way
// another process would: on PGlite it holds the lock of the migrated template's build (the server
// waits for that build), on PostgreSQL the migrations' advisory lock.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-listen-first-'));
const procs: Proc[] = [];
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  // npm and the server it started (its child: the script execs node): a test that failed midway
  // leaves the server running, and its output pipes open kept this file's process from exiting
  // (a CI run hung 30 minutes on it).
  for (const p of procs) {
    if (p.child.exitCode !== null || p.child.pid === undefined) continue;
    spawnSync('pkill', ['-KILL', '-P', String(p.child.pid)]);
    p.child.kill('SIGKILL');
    p.child.stdout?.destroy();
    p.child.stderr?.destroy();
  }
  for (const cleanup of cleanups) await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const HELD_PHASE = DB_KIND === 'pglite' ? 'database' : 'migrations';

/** Holds the server in HELD_PHASE until `release()`. */
async function hold(): Promise<{ env: Record<string, string>; release(): Promise<void> }> {
  if (DB_KIND === 'pglite') {
    const templateDir = fs.mkdtempSync(path.join(tmp, 'templates-'));
    // This process (alive) "builds" the template: the server waits for it.
    const lock = path.join(templateDir, `${templateKey()}.lock`);
    fs.writeFileSync(lock, String(process.pid));
    return {
      env: { PGLITE_TEMPLATE_DIR: templateDir },
      async release() {
        // The build "ends" as a build does: the template (the tests' own, the same database) renamed
        // into place when complete, then the lock gone.
        const building = path.join(templateDir, `${templateKey()}.build-test`);
        fs.cpSync(path.join(await pgliteTemplate(), 'pgdata'), path.join(building, 'pgdata'), { recursive: true });
        fs.renameSync(building, path.join(templateDir, templateKey()));
        fs.rmSync(lock);
      },
    };
  }
  const pg = await createTestDatabase({ empty: true }); // migrated by the server's start
  cleanups.push(() => pg.drop());
  const holder = postgres(pg.url, { max: 1, onnotice: () => {} });
  await holder`select pg_advisory_lock(${MIGRATION_LOCK})`;
  return {
    env: { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET, SECRETS_KEY: TEST_SECRETS_KEY },
    async release() {
      await holder`select pg_advisory_unlock(${MIGRATION_LOCK})`;
      await holder.end({ timeout: 5 });
    },
  };
}

/** `npm start` as a user types it, on a fresh data dir and a free port. */
async function npmStart(env: Record<string, string>): Promise<Proc & { dataDir: string; started: number }> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(tmp, 'data-'));
  const childEnv: Record<string, string | undefined> = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env };
  delete childEnv.NODE_TEST_CONTEXT;
  delete childEnv.NODE_ENV; // the start script sets it
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const started = Date.now();
  const child = spawn('npm', ['start'], { cwd: ROOT, env: childEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { child, url: `http://127.0.0.1:${port}`, output: '', dataDir, started };
  child.stdout.on('data', (c: Buffer) => (proc.output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (proc.output += c.toString()));
  procs.push(proc);
  return proc;
}

interface Health {
  status: string;
  phase?: string;
  message?: string;
}
const health = (proc: Proc) => fetch(`${proc.url}/healthz`).then((r) => r.json() as Promise<Health>, () => undefined);
const logLines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; phase?: string; source?: string });

/** What a starting server answers on /v1: 503 `starting` in the envelope, with Retry-After. */
async function assertV1Starting(proc: Proc, method: string, p: string): Promise<void> {
  const res = await fetch(proc.url + p, { method, headers: { authorization: 'Bearer svc_test_sk_whatever', 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
  assert.equal(res.status, 503, `${method} ${p}`);
  assert.equal(res.headers.get('retry-after'), '3');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await res.json()) as { error: { type: string; code: string; message: string; requestId: string } };
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'requestId', 'type']);
  assert.equal(body.error.type, 'api_error');
  assert.equal(body.error.code, 'starting');
  assert.match(body.error.message, /^The server is starting: /);
  assert.match(body.error.requestId, /^req_/);
  assert.equal(res.headers.get('x-request-id'), body.error.requestId);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', 'the usual security headers');
}

describe('npm start listens before its database is ready', () => {
  it(`answers at once; while the database is not ready (${HELD_PHASE}), /healthz says so and /v1 is 503; then it serves as usual`, async () => {
    const held = await hold();
    const proc = await npmStart({ ...held.env, DASHBOARD: 'false' });
    const first = await eventually('the port answers', () => health(proc), (h) => h !== undefined, { timeoutMs: 30_000, everyMs: 20 });
    const openedMs = Date.now() - proc.started;
    assert.equal(first!.status, 'starting');
    const h = await eventually('the held phase', () => health(proc), (h) => h?.phase === HELD_PHASE, { timeoutMs: 30_000 });
    assert.match(h!.message!, /\/v1 answers once the database is ready/);

    const ready = await fetch(`${proc.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(((await ready.json()) as { status: string; phase: string }).phase, HELD_PHASE);
    await assertV1Starting(proc, 'GET', '/v1/agents');
    await assertV1Starting(proc, 'POST', '/v1/agents');
    await assertV1Starting(proc, 'GET', '/v1/openapi.json');
    // No dashboard here: anything else is the same refusal.
    assert.equal((await fetch(`${proc.url}/dashboard`)).status, 503);

    await held.release();
    await waitReady(proc, 60_000);
    assert.deepEqual(await health(proc), { status: 'ok' });
    const unauthenticated = await fetch(`${proc.url}/v1/agents`);
    assert.equal(unauthenticated.status, 401, 'normal service: the key is checked');
    assert.equal(((await unauthenticated.json()) as { error: { code: string } }).error.code, 'missing_api_key');
    assert.equal((await fetch(`${proc.url}/v1/openapi.json`)).status, 200);

    // The log: listening comes right after the code, before the database's phases; then "ready"
    // (whose line may come through the pipe after /readyz answered).
    await until('the "ready" line', () => proc.output.includes('"msg":"ready: '));
    const lines = logLines(proc.output);
    const listening = lines.findIndex((l) => l.msg.startsWith('listening on '));
    const readyLine = lines.findIndex((l) => l.msg.startsWith('ready: /v1 answers'));
    assert.deepEqual(lines.slice(0, listening).map((l) => l.phase), ['serverBundle', 'code'], proc.output);
    assert.deepEqual(
      lines.slice(listening + 1, readyLine).filter((l) => l.phase).map((l) => l.phase),
      ['appCode', 'database', 'migrations', 'secrets', 'agentVersions', 'rateLimits', 'jobs', 'workers'],
      proc.output,
    );
    assert.match(lines[listening]!.msg, /; \/v1 answers once the database is ready$/);
    if (DB_KIND === 'pglite') {
      assert.match(lines.find((l) => l.phase === 'database')!.msg, /embedded PGlite opened \(its database created in \d+ ms from the installation's migrated template \(copied in \d+ ms\)\)/);
    }
    // Every line of the start-up is JSON (npm's own two header lines aside).
    const plain = proc.output.split('\n').filter((l) => l.trim() && !l.startsWith('{') && !l.startsWith('> '));
    assert.deepEqual(plain, []);
    console.log(`# port answered ${openedMs} ms after npm start`);

    const exited = new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    proc.child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  it('a browser gets the "Starting…" page and the dashboard API 503 meanwhile; a SIGTERM then stops it before any dashboard build', async () => {
    const held = await hold();
    const proc = await npmStart(held.env); // the dashboard on, as by default
    await eventually('the held phase', () => health(proc), (h) => h?.phase === HELD_PHASE, { timeoutMs: 30_000 });

    for (const p of ['/', '/dashboard/keys', '/signin?callbackUrl=%2Fdashboard']) {
      const page = await fetch(proc.url + p, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 503, p);
      assert.equal(page.headers.get('retry-after'), '3');
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const html = await page.text();
      assert.match(html, /<h1><span class="spin" aria-hidden="true"><\/span>Starting…<\/h1>/);
      assert.match(html, new RegExp(`data-phase="${HELD_PHASE}"`));
      assert.match(html, /<meta http-equiv="refresh" content="3">/);
      assert.match(html, /The API under <code>\/v1<\/code> answers once the database is ready\./);
    }
    const api = await fetch(`${proc.url}/api/trpc/keys.list`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(api.status, 503);
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'starting');
    await assertV1Starting(proc, 'GET', '/v1/agents');

    // Stopped while held: it finishes opening the database, then stops (no `next build` in a test).
    const exited = new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    proc.child.kill('SIGTERM');
    await held.release();
    assert.equal(await exited, 0, proc.output);
    const messages = logLines(proc.output).map((l) => l.msg);
    assert.ok(messages.includes('stopped during start-up'), proc.output);
    assert.ok(!logLines(proc.output).some((l) => l.phase === 'build' || l.source === 'next build'), 'no dashboard build');
    if (DB_KIND === 'pglite') await until('the data dir is released', () => !fs.existsSync(path.join(proc.dataDir, 'owner.lock')));
  });
});
