import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type SQL } from 'drizzle-orm';
import { openDatabase, type Database } from '../../db/client';
import { agents, idempotencyKeys, webhooks } from '../../db/schema';
import { newId } from '../../server/platform/ids';
import { Keyring } from '../../server/platform/sealed';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { signedBy, startToolServer, type ToolServer } from '../fakes/tool-server';
import { createTestDatabase, DB_KIND, prepareDataDir, TEST_AUTH_SECRET } from '../harness';
import { callProcess, runCli, seedTenant, startProcess, stop, waitReady, type Proc } from '../processes';
import { startReceiver, verify, type Receiver } from '../webhooks/receiver';
import { eventually } from '../eventually';

// Secrets at rest across starts, the CLI and several processes (docs/security.md, "Secrets at
// rest"), on the database of the run (TEST_DB): rows stored in plain text by the version before
// (secrets, and URLs holding credentials) are sealed by the next start and go on working; `admin rotate-secrets-key` moves every value
// to a new key — on PostgreSQL while two servers run, on PGlite (the server stopped) with a key
// it generates into the data dir — after which the new key alone opens everything; a missing or
// malformed key stops the start with a message saying what to set.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-secrets-'));
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

/** A fresh database of the run's kind: the environment a process needs for it, and a way to open it from here. */
async function store(): Promise<{ env: Record<string, string>; open(): Promise<Database> }> {
  const dataDir = fs.mkdtempSync(path.join(tmp, 'data-'));
  if (DB_KIND === 'postgres') {
    const pg = await createTestDatabase();
    cleanups.push(() => pg.drop());
    return { env: { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET }, open: () => openDatabase({ databaseUrl: pg.url, dataDir, max: 2 }) };
  }
  await prepareDataDir(dataDir);
  // PGlite: one process owns the data dir, so it is opened from here only while no server runs.
  // No SECRETS_KEY: the server generates one into the data dir, as on a laptop.
  return { env: { DATA_DIR: dataDir, SECRETS_KEY: '' }, open: () => openDatabase({ dataDir }) };
}

async function rows<T>(database: Database, query: SQL): Promise<T[]> {
  const result = (await database.db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** The secret columns of every row, as text. */
async function storedSecrets(database: Database): Promise<string> {
  const [r] = await rows<{ text: string }>(
    database,
    sql`select concat_ws(E'\n',
      (select string_agg(concat_ws(' ', secret, previous_secret, url, url_masked), E'\n') from webhooks),
      (select string_agg(concat_ws(' ', tool_secret, previous_tool_secret, tools::text), E'\n') from agents),
      (select string_agg(fingerprint, E'\n') from idempotency_keys)) as text`,
  );
  return r!.text;
}

/** Every sealed value's key id in the stored secrets (and no value that is not sealed). */
const keyIdsIn = (text: string) => new Set([...text.matchAll(/enc:v1:([A-Za-z0-9_-]{8}):/g)].map((m) => m[1]));

async function server(env: Record<string, string>): Promise<Proc> {
  const proc = await startProcess({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'info', ...env });
  procs.push(proc);
  await waitReady(proc);
  return proc;
}

const lookup = { type: 'http', name: 'lookup', description: 'Looks up an order', url: '', method: 'POST', parameters: { type: 'object', properties: { query: { type: 'string' } } } } as const;
const docs = (token: string) => ({ type: 'mcp' as const, name: 'docs', url: `${mcp.url}?key=${URL_TOKEN}`, allowedTools: null, headers: { Authorization: token } });
/** A credential in the URLs (docs/security.md, "URLs that are credentials"): sealed like the secrets. */
const URL_TOKEN = `ut_${randomBytes(8).toString('hex')}`;
const toolUrl = () => `${tools.url}/echo?api_token=${URL_TOKEN}`;
const hookUrl = () => `${receiver.url}?api_token=${URL_TOKEN}`;

/**
 * What must work with the secrets as they are: a run calls the HTTP tool signed with each of
 * `toolSecrets` and the MCP server with `token`; the webhook's test event verifies with each of
 * `webhookSecrets`.
 */
async function stillWorks(proc: Proc, key: string, s: { agentId: string; toolSecrets: string[]; token: string; webhookId: string; webhookSecrets: string[] }) {
  const call = <T>(method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
  const before = tools.requests.length;
  const looked = await call<{ status: string; error: unknown }>('POST', `/v1/agents/${s.agentId}/execute`, { input: 'lookup order 1042', wait: true });
  assert.equal(looked.body.status, 'succeeded', JSON.stringify(looked.body.error));
  const req = tools.requests.slice(before)[0]!;
  for (const secret of s.toolSecrets) assert.ok(signedBy(secret, tools, req), 'the tool call verifies with each secret');
  const calls = mcp.calls.length;
  const searched = await call<{ status: string; error: unknown }>('POST', `/v1/agents/${s.agentId}/execute`, { input: 'docs_search refunds', wait: true });
  assert.equal(searched.body.status, 'succeeded', JSON.stringify(searched.body.error));
  assert.equal(mcp.calls.slice(calls).find((c) => c.tool === 'search')?.headers.authorization, s.token);
  const sent = await call<{ id: string }>('POST', `/v1/webhooks/${s.webhookId}/test`);
  assert.equal(sent.status, 202);
  const deadline = Date.now() + 15_000;
  let got = receiver.received.find((r) => r.json.id === sent.body.id);
  while (!got && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    got = receiver.received.find((r) => r.json.id === sent.body.id);
  }
  assert.ok(got, 'the test event was delivered');
  for (const secret of s.webhookSecrets) verify(secret, got);
}

describe('secrets stored in plain text by the version before', () => {
  it('are sealed by the next start, URLs holding credentials too, and still sign and reach the MCP server', async () => {
    const db = await store();
    const secrets = { tool: `whsec_${newKey()}`, previousTool: `whsec_${newKey()}`, webhook: `whsec_${newKey()}`, previousWebhook: `whsec_${newKey()}` };
    const token = `Bearer legacy-${randomBytes(8).toString('hex')}`;
    const body = { name: 'retried' };
    const digest = createHash('sha256').update(`POST /v1/keys\n${JSON.stringify(body)}`).digest('hex');
    const soon = new Date(Date.now() + 3600_000);

    // Rows as the version before wrote them: every secret in plain text, a bare digest.
    let database = await db.open();
    const tenant = await seedTenant(database.db, { name: 'legacy' });
    const owner = { workspaceId: tenant.workspaceId, environment: 'test' as const };
    const fields = { ...owner, name: 'Legacy', model: 'sandbox/echo', maxSteps: 5, timeoutSeconds: 60 };
    // (A value under a key no process holds: test/secrets/wrong-key.int.test.ts.)
    const [agentId, webhookId] = [newId('agt'), newId('whk')];
    await database.db.insert(agents).values([
      { ...fields, id: agentId, tools: [{ ...lookup, url: toolUrl() }, docs(token)], toolSecret: secrets.tool, previousToolSecret: secrets.previousTool, previousToolSecretExpiresAt: soon },
    ]);
    await database.db.insert(webhooks).values({ ...owner, id: webhookId, url: hookUrl(), events: ['*'], secret: secrets.webhook, previousSecret: secrets.previousWebhook, previousSecretExpiresAt: soon });
    // A request whose process died before it answered: a retry of the same request takes it over.
    await database.db.insert(idempotencyKeys).values({ ...owner, key: 'legacy-1', apiKeyId: tenant.keyId, fingerprint: digest, lockedUntil: new Date(Date.now() - 1000), expiresAt: soon });
    await database.close();

    const proc = await server(db.env);
    // The phase's line is written before /readyz answers, but may reach us after it (a pipe).
    const phase = await eventually('the secrets phase logged', async () => proc.output.split('\n').find((l) => l.includes('"phase":"secrets"')), (l) => l !== undefined, { timeoutMs: 5_000, everyMs: 20 });
    assert.match(phase ?? proc.output, /stored secrets sealed \(2 rows, 1 idempotency fingerprints keyed\)/);
    await stillWorks(proc, tenant.key, { agentId, toolSecrets: [secrets.tool, secrets.previousTool], token, webhookId, webhookSecrets: [secrets.webhook, secrets.previousWebhook] });
    // The keyed fingerprint still tells the same request from another.
    const other = await fetch(`${proc.url}/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'idempotency-key': 'legacy-1' }, body: JSON.stringify({ name: 'other' }) });
    assert.equal(other.status, 409);
    const same = await fetch(`${proc.url}/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'idempotency-key': 'legacy-1' }, body: JSON.stringify(body) });
    assert.equal(same.status, 201);
    // The URLs were used whole.
    assert.ok(tools.requests.some((r) => r.url === `/echo?api_token=${URL_TOKEN}`), 'the tool was called at its whole URL');
    assert.ok(receiver.received.some((r) => r.url === `/hook?api_token=${URL_TOKEN}`), 'the webhook was delivered to its whole URL');
    await stop(proc);

    database = await db.open();
    try {
      const text = await storedSecrets(database);
      for (const value of [...Object.values(secrets), token, digest, URL_TOKEN]) assert.ok(!text.includes(value), 'a plain value is left');
      const ids = keyIdsIn(text);
      assert.equal(ids.size, 1, [...ids].join());
      if (DB_KIND === 'pglite') {
        // Embedded: the key was generated into the data dir, readable by its owner only.
        const file = path.join(db.env.DATA_DIR!, 'secrets-key');
        assert.equal(fs.statSync(file).mode & 0o777, 0o600);
        assert.ok(ids.has(kid(fs.readFileSync(file, 'utf8').trim())));
      }
    } finally {
      await database.close();
    }
  });
});

describe('admin rotate-secrets-key', () => {
  /** An agent and a webhook made through the API, each secret rotated once (so a previous one is stored too). */
  async function made(proc: Proc, key: string) {
    const call = <T>(method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
    const token = `Bearer rotate-${randomBytes(8).toString('hex')}`;
    const agent = await call<{ id: string; toolSecret: string }>('POST', '/v1/agents', { name: 'Rotated', tools: [{ ...lookup, url: toolUrl() }, docs(token)] });
    assert.equal(agent.status, 201);
    const rotated = await call<{ toolSecret: string }>('POST', `/v1/agents/${agent.body.id}/rotate-tool-secret`);
    const hook = await call<{ id: string; secret: string }>('POST', '/v1/webhooks', { url: hookUrl(), events: ['agent.created'] });
    const rotatedHook = await call<{ secret: string }>('POST', `/v1/webhooks/${hook.body.id}/rotate-secret`);
    return {
      agentId: agent.body.id,
      toolSecrets: [rotated.body.toolSecret, agent.body.toolSecret],
      token,
      webhookId: hook.body.id,
      webhookSecrets: [rotatedHook.body.secret, hook.body.secret],
    };
  }

  it('PostgreSQL: re-seals under the new key while servers run; then the new key alone opens everything', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only' }, async () => {
    const db = await store();
    const [k1, k2] = [newKey(), newKey()];
    const database = await db.open();
    cleanups.push(() => database.close());
    const { key } = await seedTenant(database.db, { name: 'rotate' });
    // Step 1 of the operator's procedure: the new key second everywhere; values are sealed under k1.
    const a = await server({ ...db.env, SECRETS_KEY: `${k1},${k2}` });
    const first = await made(a, key);
    // Step 2, under way: a process with the new key first (a holds it too, so it opens what b seals).
    const b = await server({ ...db.env, SECRETS_KEY: `${k2},${k1}` });
    const second = await made(b, key);
    assert.deepEqual(keyIdsIn(await storedSecrets(database)), new Set([kid(k1), kid(k2)]));
    await stillWorks(a, key, second);

    // Step 3, while both run.
    const rotate = await runCli(['rotate-secrets-key'], { ...db.env, SECRETS_KEY: `${k2},${k1}` });
    assert.equal(rotate.code, 0, rotate.stderr);
    assert.match(rotate.stdout, new RegExp(`sealed 2 rows again under the key ${kid(k2)}`));
    assert.match(rotate.stdout, /nothing is left under the other keys/);
    assert.deepEqual(keyIdsIn(await storedSecrets(database)), new Set([kid(k2)]));
    await stillWorks(b, key, first);
    await Promise.all([stop(a), stop(b)]);

    // Step 4: the old key dropped.
    const c = await server({ ...db.env, SECRETS_KEY: k2 });
    await stillWorks(c, key, first);
    await stillWorks(c, key, second);
  });

  it('embedded: generates the new key into the data dir with the server stopped, re-seals, and the server goes on with it', { skip: DB_KIND !== 'pglite' && 'PGlite only' }, async () => {
    const db = await store();
    const file = path.join(db.env.DATA_DIR!, 'secrets-key');
    let database = await db.open();
    const { key } = await seedTenant(database.db, { name: 'rotate' });
    await database.close();
    const env = db.env;
    const a = await server(env);
    const secrets = await made(a, key);
    const before = fs.readFileSync(file, 'utf8');
    // While the server holds the data dir: refused, nothing changed.
    const refused = await runCli(['rotate-secrets-key'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /in use|locked|another process/i);
    assert.equal(fs.readFileSync(file, 'utf8'), before);
    await stop(a);

    const rotate = await runCli(['rotate-secrets-key'], env);
    assert.equal(rotate.code, 0, rotate.stderr);
    const keys = fs.readFileSync(file, 'utf8').trim().split(',');
    assert.equal(keys.length, 2);
    assert.equal(keys[1], before.trim(), 'the previous key stays second (the last day of idempotency records)');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.match(rotate.stdout, new RegExp(`generated the key ${kid(keys[0]!)}.*\\n.*sealed 2 rows again under the key ${kid(keys[0]!)}`));
    database = await db.open();
    assert.deepEqual(keyIdsIn(await storedSecrets(database)), new Set([kid(keys[0]!)]));
    await database.close();

    const b = await server(env);
    await stillWorks(b, key, secrets);
  });
});

describe('a missing or malformed SECRETS_KEY', () => {
  async function exits(env: Record<string, string>): Promise<string> {
    const proc = await startProcess(env);
    procs.push(proc);
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    assert.equal(code, 1, proc.output);
    return proc.output;
  }

  it('production on PostgreSQL refuses to start without it, saying what to set', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only' }, async () => {
    const db = await store();
    const output = await exits({ ...db.env, SECRETS_KEY: '' });
    assert.match(output, /SECRETS_KEY is required in production with DATABASE_URL .*openssl rand -base64 32/);
    const cli = await runCli(['rotate-secrets-key'], { ...db.env, SECRETS_KEY: '' });
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /SECRETS_KEY is required in production with DATABASE_URL/);
  });

  it('a malformed key stops the start, naming the variable and not the value', async () => {
    const db = await store();
    const bad = `${newKey()},not-a-key`;
    const output = await exits({ ...db.env, SECRETS_KEY: bad });
    assert.match(output, /Invalid environment variable SECRETS_KEY: comma-separated base64 keys of 32 bytes/);
    assert.ok(!output.includes(bad.slice(0, 20)));
  });

  it('generate-secrets-key prints a key SECRETS_KEY takes', async () => {
    const out = await runCli(['generate-secrets-key'], {});
    assert.equal(out.code, 0, out.stderr);
    assert.equal(Buffer.from(out.stdout.trim(), 'base64').length, 32);
    assert.doesNotThrow(() => Keyring.parse(out.stdout.trim()));
  });
});
