// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { MemberRole } from '../../db/schema/values';
import { expectStatus } from '../expect';
import { dashboardCall, testSessions } from '../dashboard';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { signedBy, startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer, type Workspace } from '../harness';
import { execute } from '../executions/helpers';
import { createWebhook, eventually } from '../webhooks/helpers';
import { startReceiver, verify, type Receiver } from '../webhooks/receiver';

// URLs that are credentials (docs/security.md, "Secrets at rest", "URLs that are credentials").
// The attack: a webhook endpoint's or a tool's URL often *is* the credential — a Slack-style
// `…/services/T…/B…/<token>`, a `?api_token=…` — and it was stored in plain text (a dump, a backup
// or a read-only SQL injection handed it over) and shown whole to every member who may read the
// resource, viewers included, and in every event. Now such a URL is sealed like the other secrets,
// the resource's managers (API keys, members who may change it) see it whole, and everyone and
// everything else (viewers, events, the audit log) sees its origin and path with the rest masked.

let api: TestServer;
let owner: SeededKey;
let tools: ToolServer;
let mcp: FakeMcpServer;
let receiver: Receiver;

before(async () => {
  [tools, mcp, receiver] = await Promise.all([startToolServer(), startMcpServer(), startReceiver()]);
  api = await startServer({ dashboardSession: testSessions(), env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await api.seed.key({ ...UNLIMITED });
});
after(async () => {
  await api?.close();
  await Promise.all([tools?.close(), mcp?.close(), receiver?.close()]);
});

// A Slack-style last segment (mixed case and digits), and query tokens.
const SLACK_TOKEN = `Xk${randomBytes(11).toString('hex')}`;
const HOOK_TOKEN = `hk_${randomBytes(8).toString('hex')}`;
const TOOL_TOKEN = `tl_${randomBytes(8).toString('hex')}`;
const MCP_TOKEN = `mc_${randomBytes(8).toString('hex')}`;
const CREDENTIALS = { SLACK_TOKEN, HOOK_TOKEN, TOOL_TOKEN, MCP_TOKEN };

const hookUrl = () => `${receiver.url}/services/T0AB12CD3/B0EF45GH6/${SLACK_TOKEN}?api_token=${HOOK_TOKEN}`;
const hookMasked = () => `${receiver.url}/services/T0AB12CD3/B0EF45GH6/****?****`;
const lookup = () => ({
  type: 'http',
  name: 'lookup',
  description: 'Looks up an order',
  url: `${tools.url}/echo?api_token=${TOOL_TOKEN}`,
  method: 'POST',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
});
const docs = () => ({ type: 'mcp', name: 'Docs', url: `${mcp.url}?key=${MCP_TOKEN}`, headers: { Authorization: 'Bearer mcp-secret-value' } });
const plain = () => ({ ...lookup(), name: 'plain', url: `${tools.url}/echo` });

interface AgentView {
  id: string;
  toolSecret: string;
  tools: { name: string; url: string; headers?: Record<string, string> }[];
}
interface WebhookView {
  id: string;
  url: string;
}

async function agentWith(list: Record<string, unknown>[]): Promise<AgentView> {
  const res = await api.request<AgentView>('POST', '/v1/agents', { key: owner.key, body: { name: 'Credential URLs', tools: list } });
  expectStatus(res, 201);
  return res.body;
}

/** Every row of every table, as text: what a dump of the database holds. */
async function dump(): Promise<string> {
  const tables = await api.query<{ schema: string; name: string }>(
    sql`select table_schema as schema, table_name as name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  let text = '';
  for (const t of tables) {
    const [row] = await api.query<{ rows: string | null }>(sql`select string_agg(x::text, E'\n') as rows from ${sql.identifier(t.schema)}.${sql.identifier(t.name)} x`);
    text += `${t.schema}.${t.name}\n${row?.rows ?? ''}\n`;
  }
  return text;
}

/** A user of their own who is a member of `ws` with `role`, shown `ws` in the dashboard. */
async function member(ws: Workspace, role: MemberRole): Promise<Workspace> {
  const own = await api.seed.workspace();
  await api.query(sql`insert into workspace_members (workspace_id, user_id, role) values (${ws.id}, ${own.userId}, ${role})`);
  const switched = await dashboardCall(api, own, 'mutation', 'workspaces.switch', { workspaceId: ws.id });
  assert.equal(switched.status, 200, JSON.stringify(switched.error));
  return { ...own, id: ws.id };
}

const receivedAt = (eventId: string) => eventually(async () => receiver.received.find((r) => r.json.id === eventId), (r) => r !== undefined, 15_000, 'the event delivered');

describe('URLs that are credentials', () => {
  it('are not in a dump of the database; deliveries, tool calls and MCP requests still go to the whole URL', async () => {
    const agent = await agentWith([lookup(), docs(), plain()]);
    const hook = await createWebhook(api, owner.key, { url: hookUrl() });
    // Changed once: the audit log and the `agent.updated` event hold the agent again.
    expectStatus(await api.request('PATCH', `/v1/agents/${agent.id}`, { key: owner.key, body: { description: 'changed' } }), 200);

    const text = await dump();
    for (const [what, value] of Object.entries(CREDENTIALS)) assert.ok(!text.includes(value), `${what} is in the dump`);
    // What is not a credential stays readable, for the start-up and the dump alike.
    assert.ok(text.includes(`${tools.url}/echo`), 'the plain URL is kept as it is');

    const before = tools.requests.length;
    const looked = await execute(api, owner.key, agent.id, { input: 'lookup order 1042', wait: true });
    assert.equal(looked.body.status, 'succeeded', JSON.stringify(looked.body.error));
    const [req] = tools.requests.slice(before);
    assert.equal(req?.url, `/echo?api_token=${TOOL_TOKEN}`, 'the tool is called at its whole URL');
    assert.ok(signedBy(agent.toolSecret, tools, req!), 'the signature covers the whole URL');
    const searched = await execute(api, owner.key, agent.id, { input: 'Docs_search refunds', wait: true });
    assert.equal(searched.body.status, 'succeeded', JSON.stringify(searched.body.error));

    const sent = await api.request<{ id: string }>('POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key });
    expectStatus(sent, 202);
    const got = await receivedAt(sent.body.id);
    assert.equal(got!.url, new URL(hookUrl()).pathname + new URL(hookUrl()).search, 'delivered to the whole URL');
    verify(hook.secret, got!);
    // The event itself (what every webhook receiver and /v1/events get) shows the URL masked.
    assert.equal(got!.json.data.object.url, hookMasked());
  });

  it('are shown whole to API keys and to members who may change the resource, masked to the others and in events', async () => {
    const ws = owner.workspace;
    const agent = await agentWith([lookup(), docs()]);
    const hook = await createWebhook(api, owner.key, { url: hookUrl() });
    const wholeTools = [lookup().url, docs().url];
    const maskedTools = [`${tools.url}/echo?****`, `${mcp.url}?****`];
    const urlsOf = (a: AgentView | undefined) => a?.tools.map((t) => t.url);

    // API keys: whole (a key with the scope manages the resource).
    assert.deepEqual(urlsOf((await api.request<AgentView>('GET', `/v1/agents/${agent.id}`, { key: owner.key })).body), wholeTools);
    assert.equal((await api.request<WebhookView>('GET', `/v1/webhooks/${hook.id}`, { key: owner.key })).body.url, hookUrl());
    const listed = await api.request<{ data: WebhookView[] }>('GET', '/v1/webhooks', { key: owner.key });
    assert.equal(listed.body.data.find((w) => w.id === hook.id)?.url, hookUrl());

    // The dashboard: by role.
    const expected: Record<MemberRole, { agent: string[]; hook: string }> = {
      owner: { agent: wholeTools, hook: hookUrl() },
      admin: { agent: wholeTools, hook: hookUrl() },
      developer: { agent: wholeTools, hook: hookMasked() },
      viewer: { agent: maskedTools, hook: hookMasked() },
    };
    for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
      const as = role === 'owner' ? ws : await member(ws, role);
      const got = await dashboardCall<AgentView>(api, as, 'query', 'agents.get', { id: agent.id });
      assert.deepEqual(urlsOf(got.result), expected[role].agent, `${role}: agents.get`);
      const list = await dashboardCall<{ data: AgentView[] }>(api, as, 'query', 'agents.list', {});
      assert.deepEqual(urlsOf(list.result?.data.find((a) => a.id === agent.id)), expected[role].agent, `${role}: agents.list`);
      const w = await dashboardCall<WebhookView>(api, as, 'query', 'webhooks.get', { id: hook.id });
      assert.equal(w.result?.url, expected[role].hook, `${role}: webhooks.get`);
      const ws2 = await dashboardCall<{ data: WebhookView[] }>(api, as, 'query', 'webhooks.list', {});
      assert.equal(ws2.result?.data.find((x) => x.id === hook.id)?.url, expected[role].hook, `${role}: webhooks.list`);
    }

    // Events carry the masked form, whoever reads them (they go to every receiver).
    const events = await api.request<{ data: { type: string; data: { object: AgentView } }[] }>('GET', '/v1/events?type=agent.created', { key: owner.key });
    const created = events.body.data.find((e) => e.data.object.id === agent.id);
    assert.deepEqual(urlsOf(created?.data.object), maskedTools);
  });

  it('sent back as they were shown masked, keep the URL they stand for', async () => {
    const agent = await agentWith([lookup(), docs()]);
    const hook = await createWebhook(api, owner.key, { url: hookUrl() });
    const viewer = await member(owner.workspace, 'viewer');
    // A client that read the agent where it is masked (an event, a viewer's page) sends it back.
    const seen = (await dashboardCall<AgentView>(api, viewer, 'query', 'agents.get', { id: agent.id })).result!;
    const back = [
      { ...lookup(), url: seen.tools[0]!.url },
      { ...docs(), url: seen.tools[1]!.url, headers: { Authorization: '********' } },
    ];
    expectStatus(await api.request('PATCH', `/v1/agents/${agent.id}`, { key: owner.key, body: { tools: back, instructions: 'kept' } }), 200);
    const whole = await api.request<AgentView>('GET', `/v1/agents/${agent.id}`, { key: owner.key });
    assert.deepEqual(
      whole.body.tools.map((t) => t.url),
      [lookup().url, docs().url],
    );
    const before = tools.requests.length;
    const looked = await execute(api, owner.key, agent.id, { input: 'lookup order 7', wait: true });
    assert.equal(looked.body.status, 'succeeded', JSON.stringify(looked.body.error));
    assert.equal(tools.requests.slice(before)[0]?.url, `/echo?api_token=${TOOL_TOKEN}`);

    expectStatus(await api.request('PATCH', `/v1/webhooks/${hook.id}`, { key: owner.key, body: { url: hookMasked(), description: 'kept' } }), 200);
    assert.equal((await api.request<WebhookView>('GET', `/v1/webhooks/${hook.id}`, { key: owner.key })).body.url, hookUrl());
    const sent = await api.request<{ id: string }>('POST', `/v1/webhooks/${hook.id}/test`, { key: owner.key });
    const got = await receivedAt(sent.body.id);
    assert.equal(got!.url, new URL(hookUrl()).pathname + new URL(hookUrl()).search);
  });
});
