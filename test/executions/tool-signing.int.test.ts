// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { expectError, expectStatus, ISO_MS } from '../expect';
import type { ToolRequest, ToolServer } from '../fakes/tool-server';
import type { SeededKey, TestServer } from '../harness';
import { AGENT_FIELDS } from '../api/agent-types';
import { execute, startWithTools } from './helpers';

// Tool calls are signed over the method, the exact URL and the body (docs/executions.md, "Tool
// signing"), with the agent's secret, which POST /v1/agents/{id}/rotate-tool-secret replaces;
// the replaced one keeps signing alongside for 24 h. The attack this stops: the signature used
// to cover the body alone, so a GET (empty body) was not signed at all, and a captured call
// could be replayed with another query string, URL or method and still verify.

let api: TestServer;
let tools: ToolServer;
let owner: SeededKey;
let close: (() => Promise<void>) | undefined;

before(async () => ({ api, tools, owner, close } = await startWithTools()));
after(async () => close?.());

interface Rotated {
  id: string;
  toolSecret: string;
  previousToolSecretExpiresAt: string;
  updatedAt: string;
}

const headersOf = (req: ToolRequest) => req.headers as Record<string, string>;
/** What the tool verifies: the method, the URL it was called at (its base + the path and query it received), the raw body. */
const signed = (req: ToolRequest) => `${req.method} ${tools.url}${req.url}\n${req.body}`;
const verifies = (secret: string, req: ToolRequest, content = signed(req)) => {
  try {
    new Webhook(secret).verify(content, headersOf(req), { jsonParse: false });
    return true;
  } catch {
    return false;
  }
};

const lookup = (method: string, path: string) => ({
  type: 'http',
  name: 'lookup',
  description: 'Looks up an order',
  url: `${tools.url}${path}`,
  method,
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
});

async function agentWith(tool: Record<string, unknown>): Promise<{ id: string; toolSecret: string }> {
  const res = await api.request<{ id: string; toolSecret: string }>('POST', '/v1/agents', { key: owner.key, body: { name: 'Signed', tools: [tool] } });
  expectStatus(res, 201);
  return res.body;
}

/** Runs the agent once (the sandbox calls `lookup`) and returns the request the tool received. */
async function callOnce(agentId: string): Promise<ToolRequest> {
  const before = tools.requests.length;
  const run = await execute(api, owner.key, agentId, { input: 'lookup order 1042', wait: true });
  expectStatus(run, 200);
  assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
  const got = tools.requests.slice(before);
  assert.equal(got.length, 1);
  return got[0]!;
}

const rotate = (id: string, key = owner.key, headers: Record<string, string> = {}) =>
  api.request<Rotated>('POST', `/v1/agents/${id}/rotate-tool-secret`, { key, headers });

describe('tool call signatures', () => {
  it('a GET is signed over its method and URL with the query: another query, path or method does not verify', async () => {
    const agent = await agentWith(lookup('GET', '/echo?fixed=1'));
    const req = await callOnce(agent.id);
    assert.equal(req.method, 'GET');
    assert.equal(req.body, '');
    assert.match(req.url, /^\/echo\?fixed=1&query=/);
    assert.ok(verifies(agent.toolSecret, req), 'the tool verifies `GET <url>\\n`');
    assert.ok(!verifies(agent.toolSecret, req, ''), 'the empty body alone (what was signed before) does not verify');
    assert.ok(!verifies(agent.toolSecret, req, signed(req).replace('fixed=1', 'fixed=2')));
    assert.ok(!verifies(agent.toolSecret, req, signed(req).replace('/echo', '/admin')));
    assert.ok(!verifies(agent.toolSecret, req, signed(req).replace('GET ', 'DELETE ')));
  });

  it('a POST is signed over method, URL and body', async () => {
    const agent = await agentWith(lookup('POST', '/echo'));
    const req = await callOnce(agent.id);
    assert.equal(signed(req), `POST ${tools.url}/echo\n${req.body}`);
    assert.ok(verifies(agent.toolSecret, req));
    assert.ok(!verifies(agent.toolSecret, req, signed(req).replace('POST ', 'PUT ')));
    assert.ok(!verifies(agent.toolSecret, req, req.body));
  });
});

describe('POST /v1/agents/{id}/rotate-tool-secret', () => {
  it('answers the agent with a new secret once; calls carry both signatures for 24 h, then the new one only', async () => {
    const agent = await agentWith(lookup('POST', '/echo'));
    const t0 = Date.now();
    const res = await rotate(agent.id);
    expectStatus(res, 200);
    assert.deepEqual(Object.keys(res.body).sort(), [...AGENT_FIELDS, 'toolSecret', 'previousToolSecretExpiresAt'].sort());
    assert.match(res.body.toolSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(res.body.toolSecret, agent.toolSecret);
    assert.match(res.body.previousToolSecretExpiresAt, ISO_MS);
    const hours = (Date.parse(res.body.previousToolSecretExpiresAt) - t0) / 3.6e6;
    assert.ok(hours > 23.99 && hours < 24.01, `${hours} h`);
    assert.ok(Date.parse(res.body.updatedAt) >= t0 - 5);

    // Shown once: never in a read, a list, or the stored answer of another request.
    const got = await api.request('GET', `/v1/agents/${agent.id}`, { key: owner.key });
    assert.ok(!got.text.includes(res.body.toolSecret) && !got.text.includes('toolSecret'));

    const during = await callOnce(agent.id);
    assert.equal(headersOf(during)['webhook-signature']!.split(' ').length, 2);
    assert.ok(verifies(res.body.toolSecret, during), 'the new secret verifies');
    assert.ok(verifies(agent.toolSecret, during), 'the previous secret still verifies');

    await api.query(sql`update agents set previous_tool_secret_expires_at = now() - interval '1 second' where id = ${agent.id}`);
    const after = await callOnce(agent.id);
    assert.equal(headersOf(after)['webhook-signature']!.split(' ').length, 1);
    assert.ok(verifies(res.body.toolSecret, after));
    assert.ok(!verifies(agent.toolSecret, after), 'the previous secret stopped after its 24 h');
  });

  it('a second rotation ends the first secret at once; only the last two sign', async () => {
    const agent = await agentWith(lookup('POST', '/echo'));
    const first = (await rotate(agent.id)).body;
    const second = (await rotate(agent.id)).body;
    const req = await callOnce(agent.id);
    assert.ok(verifies(second.toolSecret, req));
    assert.ok(verifies(first.toolSecret, req));
    assert.ok(!verifies(agent.toolSecret, req));
  });

  it('emits agent.updated with the agent as the API shows it, never a secret', async () => {
    const agent = await agentWith(lookup('POST', '/echo'));
    const rotated = (await rotate(agent.id)).body;
    const events = await api.request<{ data: { type: string; data: { object: { id: string; updatedAt: string } } }[] }>('GET', '/v1/events?type=agent.updated', { key: owner.key });
    const mine = events.body.data.filter((e) => e.data.object.id === agent.id);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.data.object.updatedAt, rotated.updatedAt);
    assert.ok(!JSON.stringify(events.body).includes(rotated.toolSecret) && !JSON.stringify(events.body).includes(agent.toolSecret));
  });

  it('takes no body fields, and a deleted or unknown agent is 404 with nothing changed', async () => {
    const agent = await agentWith(lookup('POST', '/echo'));
    expectError(await api.request('POST', `/v1/agents/${agent.id}/rotate-tool-secret`, { key: owner.key, body: { toolSecret: 'whsec_mine' } }), 400, 'unknown_parameter', 'toolSecret');
    expectStatus(await api.request('DELETE', `/v1/agents/${agent.id}`, { key: owner.key }), 200);
    expectError(await rotate(agent.id), 404, 'resource_not_found', 'id');
    expectError(await rotate('agt_nope'), 404, 'resource_not_found', 'id');
    const [row] = await api.query<{ tool_secret: string; previous_tool_secret: string | null }>(sql`select tool_secret, previous_tool_secret from agents where id = ${agent.id}`);
    assert.equal(row!.previous_tool_secret, null);
    assert.equal(api.opened(`agents.tool_secret:${agent.id}`, row!.tool_secret), agent.toolSecret);
  });
});
