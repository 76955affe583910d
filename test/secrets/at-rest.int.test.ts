// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { signedBy, startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { execute } from '../executions/helpers';
import { createWebhook, deliveries, eventually } from '../webhooks/helpers';
import { startReceiver, verify, type Receiver } from '../webhooks/receiver';

// Secrets at rest (docs/security.md, "Secrets at rest"). The attack: a copy of the database (a
// dump, a backup, a replica, a read-only SQL injection) used to hand over every webhook signing
// secret, every agent's tool secret (forge calls to the agent's tools, deliveries to the
// receivers) and every MCP server's credentials, in plain text; and an idempotency record's
// fingerprint, a plain SHA-256 of the request, confirmed any guess of a request's body. Now they
// are sealed (AES-256-GCM under SECRETS_KEY, bound to their row) and fingerprints keyed.
// Start-up sealing of old rows, the CLI's rotation and a missing key: processes.int.test.ts.

let api: TestServer;
let owner: SeededKey;
let tools: ToolServer;
let mcp: FakeMcpServer;
let receiver: Receiver;

before(async () => {
  [tools, mcp, receiver] = await Promise.all([startToolServer(), startMcpServer(), startReceiver()]);
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await api.seed.key({ ...UNLIMITED });
});
after(async () => {
  await api?.close();
  await Promise.all([tools?.close(), mcp?.close(), receiver?.close()]);
});

const MCP_TOKEN = `Bearer mcp-${randomBytes(12).toString('hex')}`;
const MCP_TEAM = `team-${randomBytes(6).toString('hex')}`;
const lookup = () => ({
  type: 'http',
  name: 'lookup',
  description: 'Looks up an order',
  url: `${tools.url}/echo`,
  method: 'POST',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
});
const docs = () => ({ type: 'mcp', name: 'Docs', url: mcp.url, headers: { Authorization: MCP_TOKEN, 'X-Team': MCP_TEAM } });

interface CreatedAgent {
  id: string;
  toolSecret: string;
}

async function agentWith(tool: Record<string, unknown>[]): Promise<CreatedAgent> {
  const res = await api.request<CreatedAgent>('POST', '/v1/agents', { key: owner.key, body: { name: 'Sealed', tools: tool } });
  expectStatus(res, 201);
  return res.body;
}

/** Runs the agent on `input`; the run as it ended. */
async function run(agentId: string, input: string) {
  const res = await execute(api, owner.key, agentId, { input, wait: true });
  expectStatus(res, 200);
  return res.body;
}

/** The `webhook.test` event the receiver got for a webhook, if it did. */
const testEventOf = (webhookId: string) => receiver.received.find((r) => r.json.type === 'webhook.test' && r.json.data.object.id === webhookId);

/** Every row of every table, as text: what a dump of the database holds. */
async function dump(): Promise<string> {
  const tables = await api.query<{ schema: string; name: string }>(
    sql`select table_schema as schema, table_name as name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  assert.ok(tables.some((t) => t.name === 'agents') && tables.some((t) => t.name === 'idempotency_keys'));
  let text = '';
  for (const t of tables) {
    const [row] = await api.query<{ rows: string | null }>(sql`select string_agg(x::text, E'\n') as rows from ${sql.identifier(t.schema)}.${sql.identifier(t.name)} x`);
    text += `${t.schema}.${t.name}\n${row?.rows ?? ''}\n`;
  }
  return text;
}

describe('secrets at rest', () => {
  it('a dump of the database holds none of the secrets, and everything still signs and sends them', async () => {
    const agent = await agentWith([lookup(), docs()]);
    const rotatedAgent = await api.request<CreatedAgent>('POST', `/v1/agents/${agent.id}/rotate-tool-secret`, { key: owner.key });
    expectStatus(rotatedAgent, 200);
    const hook = await createWebhook(api, owner.key, { url: receiver.url });
    const rotatedHook = await api.request<{ secret: string }>('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: owner.key });
    expectStatus(rotatedHook, 200);
    // A request under an Idempotency-Key: its fingerprint is stored.
    const body = { name: `idempotent-${randomBytes(4).toString('hex')}` };
    expectStatus(await api.request('POST', '/v1/keys', { key: owner.key, body, headers: { 'idempotency-key': 'dumped-1' } }), 201);

    const secrets = { webhook: rotatedHook.body.secret, previousWebhook: hook.secret, tool: rotatedAgent.body.toolSecret, previousTool: agent.toolSecret };
    const text = await dump();
    for (const [what, secret] of Object.entries(secrets)) {
      assert.match(secret, /^whsec_/);
      // The 32 random bytes, in any of the forms they could be written in.
      const bytes = Buffer.from(secret.slice(6), 'base64');
      for (const form of [secret.slice(6), bytes.toString('hex'), bytes.toString('base64url')]) assert.ok(!text.includes(form), `the ${what} secret is in the dump`);
    }
    for (const value of [MCP_TOKEN, MCP_TEAM]) assert.ok(!text.includes(value), 'an MCP header value is in the dump');
    // The fingerprint is keyed: not the SHA-256 of the request anyone can compute.
    const digest = createHash('sha256').update(`POST /v1/keys\n${JSON.stringify(body)}`).digest('hex');
    assert.ok(!text.includes(digest), 'the plain SHA-256 of the request is in the dump');
    const [record] = await api.query<{ fingerprint: string }>(sql`select fingerprint from idempotency_keys where key = 'dumped-1'`);
    assert.match(record!.fingerprint, /^[A-Za-z0-9_-]{8}:[0-9a-f]{64}$/);

    // Unchanged behaviour: the tool call carries both signatures, the MCP server its headers.
    const before = tools.requests.length;
    const called = await run(agent.id, 'lookup order 1042');
    assert.equal(called.status, 'succeeded', JSON.stringify(called.error));
    const [req] = tools.requests.slice(before);
    assert.ok(req && signedBy(secrets.tool, tools, req) && signedBy(secrets.previousTool, tools, req), 'the tool call verifies with the new and the previous secret');
    const searched = await run(agent.id, 'Docs_search refunds');
    assert.equal(searched.status, 'succeeded', JSON.stringify(searched.error));
    const call = mcp.calls.find((c) => c.tool === 'search');
    assert.equal(call?.headers.authorization, MCP_TOKEN);
    assert.equal(call?.headers['x-team'], MCP_TEAM);
    // And the webhook's delivery verifies with the new and the previous secret.
    expectStatus(await api.request('POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key }), 202);
    const delivered = await eventually(async () => testEventOf(hook.id), (r) => r !== undefined, 15_000, 'the test event delivered');
    verify(secrets.webhook, delivered!);
    verify(secrets.previousWebhook, delivered!);
  });

  it('a sealed value copied into another row does not open there: the run fails saying why, the rest goes on', async () => {
    const a = await agentWith([lookup()]);
    const b = await agentWith([lookup()]);
    await api.query(sql`update agents set tool_secret = (select tool_secret from agents where id = ${a.id}) where id = ${b.id}`);
    const [moved] = await api.query<{ tool_secret: string }>(sql`select tool_secret from agents where id = ${b.id}`);
    assert.throws(() => api.opened(`agents.tool_secret:${b.id}`, moved!.tool_secret), /cannot be opened: it does not authenticate/);

    const before = tools.requests.length;
    const failed = await run(b.id, 'lookup order 7');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'tool_error');
    assert.match(failed.error!.message, /stored tool secrets cannot be opened by this server/);
    assert.equal(tools.requests.length, before, 'nothing was called with a secret from another row');
    // The agent it was copied from still works, signed with its own secret.
    const ok = await run(a.id, 'lookup order 8');
    assert.equal(ok.status, 'succeeded');
    assert.ok(signedBy(a.toolSecret, tools, tools.requests.at(-1)!));

    // A webhook's: the delivery is not signed with it. The attempt fails saying why, nothing is
    // sent, and it is retried on the schedule (docs/security.md, "A wrong key").
    const source = await createWebhook(api, owner.key, { url: receiver.url });
    const target = await createWebhook(api, owner.key, { url: receiver.url });
    await api.query(sql`update webhooks set secret = (select secret from webhooks where id = ${source.id}) where id = ${target.id}`);
    expectStatus(await api.request('POST', `/v1/webhooks/${target.id}/test`, { key: owner.key }), 202);
    const [attempted] = await eventually(() => deliveries(api, owner.key, target.id), (d) => (d[0]?.attempts.length ?? 0) > 0, 15_000, 'a failed attempt recorded');
    assert.equal(attempted!.status, 'pending', 'retried on the schedule');
    assert.deepEqual([attempted!.attempts[0]!.statusCode, attempted!.attempts[0]!.latencyMs], [null, 0]);
    assert.match(attempted!.attempts[0]!.error!, /^Not sent: the webhook's signing secret cannot be opened by this server: it does not authenticate/);
    assert.equal(testEventOf(target.id), undefined, 'nothing was sent signed with a secret from another row');
    expectStatus(await api.request('GET', '/v1/agents?limit=1', { key: owner.key }), 200);
  });

  it('a value sealed under a key the server does not hold fails that run clearly, never the process', async () => {
    const { Keyring } = await import('../../server/platform/sealed');
    const stranger = Keyring.parse(randomBytes(32).toString('base64'));
    const agent = await agentWith([docs()]);
    const tools = (await api.query<{ tools: { type: string; headers: Record<string, string> }[] }>(sql`select tools from agents where id = ${agent.id}`))[0]!.tools;
    tools[0]!.headers.Authorization = stranger.seal(`agents.mcp_header:${agent.id}:docs:authorization`, MCP_TOKEN);
    await api.query(sql`update agents set tools = ${JSON.stringify(tools)}::jsonb where id = ${agent.id}`);
    assert.throws(() => api.opened(`agents.mcp_header:${agent.id}:docs:authorization`, tools[0]!.headers.Authorization!), new RegExp(`sealed under the key ${stranger.currentId}, which SECRETS_KEY does not hold`));

    const calls = mcp.requests.length;
    const failed = await run(agent.id, 'Docs_search refunds');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'tool_error');
    assert.match(failed.error!.message, /SECRETS_KEY/);
    assert.equal(mcp.requests.length, calls, 'the MCP server was not contacted');
    // On update, "********" keeps the stored value as it is, sealed, without opening it (it was a
    // 500): the update goes through, and the run still fails saying why.
    const masked = { ...docs(), headers: { Authorization: '********' } };
    expectStatus(await api.request('PATCH', `/v1/agents/${agent.id}`, { key: owner.key, body: { tools: [masked], instructions: 'kept' } }), 200);
    const [kept] = await api.query<{ tools: { headers: Record<string, string> }[] }>(sql`select tools from agents where id = ${agent.id}`);
    assert.equal(kept!.tools[0]!.headers.Authorization, tools[0]!.headers.Authorization, 'the sealed value is kept as it was');
    assert.equal((await run(agent.id, 'Docs_search refunds')).error?.code, 'tool_error');
    expectStatus(await api.request('PATCH', `/v1/agents/${agent.id}`, { key: owner.key, body: { tools: [docs()] } }), 200);
    assert.equal((await run(agent.id, 'Docs_search refunds')).status, 'succeeded', 'a new value replaces the unreadable one');
  });
});

describe('idempotency fingerprints', () => {
  const createKey = (body: unknown, idempotencyKey: string) => api.request<{ id: string }>('POST', '/v1/keys', { key: owner.key, body, headers: { 'idempotency-key': idempotencyKey } });

  it('a bare digest (written by a process of the version before) still matches; a fingerprint under a key no longer held is a conflict', async () => {
    const first = await createKey({ name: 'legacy' }, 'legacy-1');
    expectStatus(first, 201);
    const digest = createHash('sha256').update(`POST /v1/keys\n${JSON.stringify({ name: 'legacy' })}`).digest('hex');
    await api.query(sql`update idempotency_keys set fingerprint = ${digest} where key = 'legacy-1'`);
    const again = await createKey({ name: 'legacy' }, 'legacy-1');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.id, first.body.id);
    expectError(await createKey({ name: 'other' }, 'legacy-1'), 409, 'idempotency_conflict');

    await api.query(sql`update idempotency_keys set fingerprint = ${`Zz9Zz9Zz:${'0'.repeat(64)}`} where key = 'legacy-1'`);
    expectError(await createKey({ name: 'legacy' }, 'legacy-1'), 409, 'idempotency_conflict');
  });
});
