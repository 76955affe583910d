// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type SQL } from 'drizzle-orm';
import { openDatabase, type Database } from '../../db/client';
import { webhooks } from '../../db/schema';
import { newId } from '../../server/platform/ids';
import { Keyring } from '../../server/platform/sealed';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { signedBy, startToolServer, type ToolServer } from '../fakes/tool-server';
import { createTestDatabase, DB_KIND, prepareDataDir, TEST_AUTH_SECRET } from '../harness';
import { callProcess, runCli, seedTenant, startProcess, stop, waitReady, type Proc } from '../processes';
import { startReceiver, verify, type Receiver } from '../webhooks/receiver';
import { eventually } from '../eventually';

// A wrong SECRETS_KEY (docs/security.md, "Secrets at rest", "A wrong key"). The attack (an
// operator's slip, or a key dropped too soon): started with another key over the same database,
// the server said it was ready; a PATCH sending the masked MCP headers back answered 500, webhook
// deliveries stayed `pending` with no attempt recorded, and a secret rotated while unopenable left
// a previous secret that failed every delivery and call for a day. Now the start checks a sample
// of the stored secrets: none opening (the key is plainly another) stops it, naming the keys
// found and the keys held; some not opening are logged place by place; and every path that meets
// one answers clearly.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-wrong-key-'));
let tools: ToolServer;
let mcp: FakeMcpServer;
let receiver: Receiver;
const procs: Proc[] = [];
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  [tools, mcp, receiver] = await Promise.all([startToolServer(), startMcpServer(), startReceiver()]);
});
after(async () => {
  await Promise.all(procs.map((p) => stop(p)));
  for (const cleanup of cleanups) await cleanup();
  await Promise.all([tools?.close(), mcp?.close(), receiver?.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const newKey = () => randomBytes(32).toString('base64');
const kid = (keys: string) => Keyring.parse(keys).currentId;

/** A fresh database of the run's kind (PGlite: opened from here only while no server runs). */
async function store(): Promise<{ env: Record<string, string>; open(): Promise<Database> }> {
  const dataDir = fs.mkdtempSync(path.join(tmp, 'data-'));
  if (DB_KIND === 'postgres') {
    const pg = await createTestDatabase();
    cleanups.push(() => pg.drop());
    return { env: { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET }, open: () => openDatabase({ databaseUrl: pg.url, dataDir, max: 2 }) };
  }
  await prepareDataDir(dataDir);
  return { env: { DATA_DIR: dataDir }, open: () => openDatabase({ dataDir }) };
}

async function rows<T>(database: Database, query: SQL): Promise<T[]> {
  const result = (await database.db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

async function server(env: Record<string, string>): Promise<Proc> {
  const proc = await startProcess({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'info', ...env });
  procs.push(proc);
  await waitReady(proc);
  return proc;
}

async function exits(env: Record<string, string>): Promise<string> {
  const proc = await startProcess({ LOG_LEVEL: 'info', ...env });
  procs.push(proc);
  // A server that starts instead (as before the check) is stopped after a minute, and fails the test.
  const timer = setTimeout(() => void stop(proc), 60_000);
  const code = await new Promise<number | null>((resolve) => (proc.child.exitCode !== null ? resolve(proc.child.exitCode) : proc.child.once('exit', resolve)));
  clearTimeout(timer);
  assert.equal(code, 1, proc.output);
  return proc.output;
}

const lookup = () => ({ type: 'http', name: 'lookup', description: 'Looks up an order', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { query: { type: 'string' } } } });
const docs = () => ({ type: 'mcp', name: 'docs', url: mcp.url, headers: { Authorization: `Bearer ${randomBytes(8).toString('hex')}` } });

type Run = { status: string; error: { code: string; message: string } | null };
interface Delivery {
  id: string;
  status: string;
  attempts: { error: string | null; statusCode: number | null }[];
}

/** What one process makes through the API: an agent with an HTTP tool, one with an MCP tool, a webhook. */
async function made(proc: Proc, key: string) {
  const call = <T>(method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
  const http = await call<{ id: string; toolSecret: string }>('POST', '/v1/agents', { name: 'http', tools: [lookup()] });
  const withMcp = await call<{ id: string }>('POST', '/v1/agents', { name: 'mcp', tools: [docs()] });
  const hook = await call<{ id: string; secret: string }>('POST', '/v1/webhooks', { url: receiver.url, events: ['key.revoked'] });
  assert.deepEqual([http.status, withMcp.status, hook.status], [201, 201, 201]);
  return { http: http.body.id, mcp: withMcp.body.id, hook: hook.body.id };
}

describe('a SECRETS_KEY that does not open the stored secrets', () => {
  it('another key altogether: the start stops, naming the keys the secrets are sealed under and the keys it holds; nothing is written', async () => {
    const db = await store();
    const [right, wrong] = [newKey(), newKey()];
    let database = await db.open();
    const { key, workspaceId } = await seedTenant(database.db, { name: 'wrong' });
    await database.close();
    const a = await server({ ...db.env, SECRETS_KEY: right });
    await made(a, key);
    await stop(a);
    // A row the version before wrote in plain text: a start must not seal it under the wrong key.
    database = await db.open();
    const legacy = newId('whk');
    const legacySecret = `whsec_${newKey()}`;
    await database.db.insert(webhooks).values({ id: legacy, workspaceId, environment: 'test', url: receiver.url, events: ['*'], secret: legacySecret });
    await database.close();

    const output = await exits({ ...db.env, SECRETS_KEY: wrong });
    assert.match(output, new RegExp(`SECRETS_KEY cannot open the stored secrets: .*sealed under the key ${kid(right)}.*holds ${kid(wrong)}`));
    assert.doesNotMatch(output, /"phase":"secrets".*sealed \(/, 'nothing was sealed');
    database = await db.open();
    const [row] = await rows<{ secret: string }>(database, sql`select secret from webhooks where id = ${legacy}`);
    await database.close();
    assert.equal(row!.secret, legacySecret, 'the plain value is left for the right key to seal');

    // The right key starts (and seals the old row).
    const b = await server({ ...db.env, SECRETS_KEY: right });
    await stop(b);
  });

  it('some values under a key no longer held: the start names them; every path that meets one answers clearly, never a 500', async () => {
    const db = await store();
    const [old, current] = [newKey(), newKey()];
    const database = await db.open();
    const { key } = await seedTenant(database.db, { name: 'partly' });
    await database.close();
    // Made under `old`, then under `current` (both held), then `old` is dropped too soon.
    const a = await server({ ...db.env, SECRETS_KEY: old });
    const lost = await made(a, key);
    await stop(a);
    const b = await server({ ...db.env, SECRETS_KEY: `${current},${old}` });
    const kept = await made(b, key);
    await stop(b);

    const c = await server({ ...db.env, SECRETS_KEY: current });
    // The start says exactly which sampled values it cannot open, and under which key they are.
    for (const place of [`agents.tool_secret:${lost.http}`, `agents.mcp_header:${lost.mcp}:docs:authorization`, `webhooks.secret:${lost.hook}`]) {
      assert.match(c.output, new RegExp(`${place.replaceAll('.', '\\.')}.*${kid(old)}`), `${place} named at start-up`);
    }
    assert.ok(!new RegExp(`agents\\.tool_secret:${kept.http}`).test(c.output), 'what opens is not named');
    const call = <T>(method: string, p: string, body?: unknown) => callProcess<T>(c.url, key, method, p, body);

    // An update sending the MCP headers back masked keeps them (it was a 500).
    const patched = await call<{ tools: { headers: Record<string, string> }[] }>('PATCH', `/v1/agents/${lost.mcp}`, { tools: [{ ...docs(), headers: { Authorization: '********' } }], instructions: 'still here' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    // Its run, and the HTTP tool's, fail saying why, before any tool is called.
    const calls = [tools.requests.length, mcp.requests.length];
    for (const agent of [lost.mcp, lost.http]) {
      const run = await call<Run>('POST', `/v1/agents/${agent}/execute`, { input: agent === lost.mcp ? 'docs_search refunds' : 'lookup order 1', wait: true });
      assert.equal(run.body.status, 'failed');
      assert.equal(run.body.error?.code, 'tool_error');
      assert.match(run.body.error!.message, new RegExp(`sealed under the key ${kid(old)}.*SECRETS_KEY`));
    }
    assert.deepEqual([tools.requests.length, mcp.requests.length], calls, 'nothing was called');

    // A delivery records a failed attempt saying why (it stayed pending with no attempt).
    const sent = await call<{ id: string }>('POST', `/v1/webhooks/${lost.hook}/test`);
    assert.equal(sent.status, 202);
    const deliveries = () => call<{ data: Delivery[] }>('GET', `/v1/webhooks/${lost.hook}/deliveries`).then((r) => r.body.data);
    const [failed] = await eventually('a failed attempt recorded', deliveries, (d) => (d[0]?.attempts.length ?? 0) > 0, { timeoutMs: 15_000, everyMs: 50 });
    assert.equal(failed!.attempts[0]!.statusCode, null);
    assert.match(failed!.attempts[0]!.error ?? '', new RegExp(`signing secret cannot be opened by this server: it is sealed under the key ${kid(old)}`));

    // Rotating replaces the secret nobody can open (it is not kept as the previous one, which
    // would fail every delivery and call for 24 h): both work again.
    const rotatedTool = await call<{ toolSecret: string }>('POST', `/v1/agents/${lost.http}/rotate-tool-secret`);
    assert.equal(rotatedTool.status, 200);
    const before = tools.requests.length;
    const run = await call<Run>('POST', `/v1/agents/${lost.http}/execute`, { input: 'lookup order 2', wait: true });
    assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
    assert.ok(signedBy(rotatedTool.body.toolSecret, tools, tools.requests.slice(before)[0]!));
    const rotatedHook = await call<{ secret: string }>('POST', `/v1/webhooks/${lost.hook}/rotate-secret`);
    assert.equal(rotatedHook.status, 200);
    const again = await call<{ id: string }>('POST', `/v1/webhooks/${lost.hook}/test`);
    const got = await eventually('delivered after the rotation', async () => receiver.received.find((r) => r.json.id === again.body.id), (r) => r !== undefined, { timeoutMs: 15_000, everyMs: 50 });
    verify(rotatedHook.body.secret, got!);
    assert.equal((await fetch(`${c.url}/readyz`)).status, 200);
    await stop(c);

    // The CLI's rotation leaves what it cannot open, names it, and exits 1.
    const rotate = await runCli(['rotate-secrets-key'], { ...db.env, SECRETS_KEY: current });
    assert.equal(rotate.code, 1, rotate.stdout);
    assert.match(rotate.stderr, new RegExp(`cannot be opened.*${kid(old)}`));
    assert.match(rotate.stderr, new RegExp(`agents\\.mcp_header:${lost.mcp}:docs:authorization`));
    assert.doesNotMatch(rotate.stderr, /is the new key first in every process/, 'what is left is what cannot be opened');
  });
});
