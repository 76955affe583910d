import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus, ISO_MS } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { AGENT_FIELDS, AGENT_ID, httpTool, type Agent, type AgentList, type CreatedAgent, type DeletedAgent } from './agent-types';

// The agent endpoints as a user meets them (docs/api.md, "Agents"): create, read, list, update,
// delete.
// Validation of every field is in agents-validation.int.test.ts.

let api: TestServer;
let admin: SeededKey;

before(async () => {
  // No workers: an execution stays queued, so deleting its agent has something to cancel.
  api = await startServer({ env: { RUN_WORKERS: 'false' } });
  admin = await api.seed.key({ name: 'admin', ...UNLIMITED });
});
after(() => api?.close());

const create = (body: Record<string, unknown>, key = admin.key) => api.request<CreatedAgent>('POST', '/v1/agents', { key, body });
const get = (id: string, key = admin.key) => api.request<Agent>('GET', `/v1/agents/${id}`, { key });
const patch = (id: string, body: Record<string, unknown>, key = admin.key) => api.request<Agent>('PATCH', `/v1/agents/${id}`, { key, body });
const remove = (id: string, key = admin.key) => api.request<DeletedAgent>('DELETE', `/v1/agents/${id}`, { key });
const list = (query = '', key = admin.key) => api.request<AgentList>('GET', `/v1/agents${query}`, { key });
const made = async (body: Record<string, unknown> = { name: 'agent' }, key = admin.key) => {
  const res = await create(body, key);
  expectStatus(res, 201);
  return res.body;
};
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

const FULL = {
  name: 'Order support',
  description: 'Answers questions about orders.',
  model: 'openai/gpt-4o-mini',
  instructions: 'Be brief.',
  tools: [httpTool(), httpTool({ name: 'refund', method: 'PATCH', url: 'http://93.184.215.14:8080/refund', approval: 'always' })],
  temperature: 0.7,
  maxSteps: 12,
  timeoutSeconds: 600,
  maxTotalTokens: 50_000,
  approvalTimeoutSeconds: 3_600,
  traceContent: true,
  outputSchema: null,
  metadata: { team: 'support', tier: 'gold' },
};

describe('POST /v1/agents', () => {
  it('answers 201 with the documented fields, the defaults and the tool secret (once)', async () => {
    const t0 = Date.now();
    const res = await create({ name: '  Triage  ' });
    expectStatus(res, 201);
    const a = res.body;
    assert.deepEqual(Object.keys(a).sort(), [...AGENT_FIELDS, 'toolSecret'].sort());
    assert.match(a.id, AGENT_ID);
    assert.match(a.toolSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const { id: _id, toolSecret: _secret, createdAt, updatedAt, ...rest } = a;
    assert.deepEqual(rest, {
      version: 1,
      labels: { production: 1 },
      name: 'Triage',
      description: null,
      model: 'sandbox/echo',
      instructions: null,
      tools: [],
      temperature: null,
      maxSteps: 5,
      timeoutSeconds: 120,
      maxTotalTokens: null,
      approvalTimeoutSeconds: 86_400,
      traceContent: false,
      outputSchema: null,
      metadata: {},
      environment: 'test',
    });
    assert.match(createdAt, ISO_MS);
    assert.equal(updatedAt, createdAt);
    assert.ok(Math.abs(new Date(createdAt).getTime() - t0) < 10_000);
  });

  it('keeps every field given, exactly (tool method defaults to POST)', async () => {
    const a = await made(FULL);
    const { id: _id, toolSecret: _s, createdAt: _c, updatedAt: _u, environment, version, labels, ...fields } = a;
    assert.equal(environment, 'test');
    assert.equal(version, 1);
    assert.deepEqual(labels, { production: 1 });
    const [first, second] = FULL.tools;
    assert.deepEqual(fields, { ...FULL, tools: [{ ...first, method: 'POST', approval: 'never' }, second] });
    const { toolSecret: _secret, ...view } = a;
    assert.deepEqual((await get(a.id)).body, view);
  });

  it('never shows the tool secret again, and stores the one it showed', async () => {
    const a = await made({ name: 'secretive' });
    for (const res of [await get(a.id), await list('?limit=100'), await patch(a.id, { name: 'still secretive' })]) {
      expectStatus(res, 200);
      assert.ok(!res.text.includes(a.toolSecret), 'the tool secret appears again');
      assert.ok(!res.text.includes('toolSecret'));
    }
    // Stored sealed (docs/security.md, "Secrets at rest"): the row holds it, not in plain text.
    const [row] = await api.query<{ tool_secret: string }>(sql`select tool_secret from agents where id = ${a.id}`);
    assert.ok(!row!.tool_secret.includes(a.toolSecret.slice(6)));
    assert.equal(api.opened(`agents.tool_secret:${a.id}`, row!.tool_secret), a.toolSecret);
    assert.notEqual((await made({ name: 'other' })).toolSecret, a.toolSecret);
  });

  it('never lets the caller set id, timestamps, workspace, environment or the secret', async () => {
    for (const field of ['id', 'createdAt', 'updatedAt', 'deletedAt', 'workspaceId', 'environment', 'toolSecret']) {
      const value = field === 'id' ? 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK' : field === 'environment' ? 'live' : 'x';
      expectError(await create({ name: 'mass', [field]: value }), 400, 'unknown_parameter', field);
    }
  });

  it('puts the agent in the key’s environment: invisible from the other one', async () => {
    const live = await api.seed.key({ workspace: admin.workspace, environment: 'live' });
    const a = await made({ name: 'live agent' }, live.key);
    assert.equal(a.environment, 'live');
    expectStatus(await get(a.id, live.key), 200);
    expectError(await get(a.id), 404, 'resource_not_found', 'id');
    assert.ok(!(await list('?limit=100')).body.data.some((x) => x.id === a.id));
  });
});

describe('GET /v1/agents/:id', () => {
  it('answers 404 for unknown, malformed and other-kind ids', async () => {
    for (const id of ['agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK', 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', 'nonsense', 'x'.repeat(500)]) {
      expectError(await get(id), 404, 'resource_not_found', 'id');
    }
  });
});

describe('PATCH /v1/agents/:id', () => {
  it('changes only the given fields and moves updatedAt', async () => {
    const a = await made(FULL);
    await tick();
    const res = await patch(a.id, { name: ' Renamed ', maxSteps: 3 });
    expectStatus(res, 200);
    const { toolSecret: _s, ...view } = a;
    assert.deepEqual({ ...res.body, updatedAt: view.updatedAt }, { ...view, name: 'Renamed', maxSteps: 3, version: 2, labels: { production: 2 } }, 'a behaviour change: version 2');
    assert.ok(res.body.updatedAt > a.updatedAt, `${res.body.updatedAt} ≤ ${a.updatedAt}`);
    assert.equal(res.body.createdAt, a.createdAt);
    assert.deepEqual((await get(a.id)).body, res.body);
  });

  it('clears description, instructions and temperature with null', async () => {
    const a = await made(FULL);
    const res = await patch(a.id, { description: null, instructions: null, temperature: null });
    expectStatus(res, 200);
    assert.deepEqual([res.body.description, res.body.instructions, res.body.temperature], [null, null, null]);
    assert.equal(res.body.model, FULL.model);
  });

  it('replaces tools and metadata whole', async () => {
    const a = await made(FULL);
    const tools = [httpTool({ name: 'only', method: 'GET' })];
    const res = await patch(a.id, { tools, metadata: { fresh: 'yes' } });
    expectStatus(res, 200);
    assert.deepEqual(res.body.tools, tools.map((t) => ({ ...t, approval: 'never' })));
    assert.deepEqual(res.body.metadata, { fresh: 'yes' });
    const emptied = await patch(a.id, { tools: [], metadata: {} });
    assert.deepEqual([emptied.body.tools, emptied.body.metadata], [[], {}]);
  });

  it('accepts an empty body: 200 with the agent, unchanged', async () => {
    const a = await made(FULL);
    await tick();
    const res = await patch(a.id, {});
    expectStatus(res, 200);
    const { toolSecret: _s, ...view } = a;
    assert.deepEqual(res.body, view);
  });

  it('validates like create, and refuses null where a value is required', async () => {
    const a = await made({ name: 'strict' });
    expectError(await patch(a.id, { maxSteps: 21 }), 400, 'invalid_parameter', 'maxSteps');
    expectError(await patch(a.id, { model: 'nope/x' }), 400, 'invalid_parameter', 'model');
    expectError(await patch(a.id, { tools: [httpTool({ url: 'http://127.0.0.1/x' })] }), 400, 'invalid_parameter', 'tools.0.url');
    for (const field of ['name', 'model', 'maxSteps', 'timeoutSeconds', 'tools', 'metadata']) {
      expectError(await patch(a.id, { [field]: null }), 400, 'invalid_parameter', field);
    }
    for (const field of ['createdAt', 'updatedAt', 'workspaceId', 'environment', 'toolSecret', 'deletedAt']) {
      expectError(await patch(a.id, { [field]: 'x' }), 400, 'unknown_parameter', field);
    }
    assert.equal((await get(a.id)).body.updatedAt, a.updatedAt, 'a refused update changed the agent');
  });

  it('checks the input before the lookup: 400 for bad input, else 404 for an unknown agent', async () => {
    const unknown = 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK';
    expectError(await patch(unknown, { maxSteps: 0 }), 400, 'invalid_parameter', 'maxSteps');
    expectError(await patch(unknown, { name: 'x' }), 404, 'resource_not_found', 'id');
    expectError(await patch(unknown, {}), 404, 'resource_not_found', 'id');
  });
});

describe('DELETE /v1/agents/:id', () => {
  it('answers {id, deleted: true}; the agent is then 404 everywhere and not listed', async () => {
    const a = await made({ name: 'doomed' });
    const res = await remove(a.id);
    expectStatus(res, 200);
    assert.deepEqual(res.body, { id: a.id, deleted: true });
    expectError(await get(a.id), 404, 'resource_not_found');
    expectError(await patch(a.id, { name: 'zombie' }), 404, 'resource_not_found');
    expectError(await patch(a.id, {}), 404, 'resource_not_found');
    expectError(await remove(a.id), 404, 'resource_not_found');
    assert.ok(!(await list('?limit=100')).body.data.some((x) => x.id === a.id), 'deleted agent listed');
  });

  it('cancels the agent’s queued executions in the same step', async () => {
    const a = await made({ name: 'busy' });
    const run = await api.request<{ id: string; status: string }>('POST', `/v1/agents/${a.id}/execute`, { key: admin.key, body: { input: 'hello' } });
    expectStatus(run, 202);
    assert.equal(run.body.status, 'queued');
    expectStatus(await remove(a.id), 200);
    const after = await api.request<{ status: string }>('GET', `/v1/executions/${run.body.id}`, { key: admin.key });
    expectStatus(after, 200);
    assert.equal(after.body.status, 'cancelled');
    expectError(await api.request('POST', `/v1/agents/${a.id}/execute`, { key: admin.key, body: { input: 'again' } }), 404, 'resource_not_found');
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of ['agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK', 'exe_01JD8X3ZQ2N6W5V4T3S2R1P0MK', 'nonsense']) {
      expectError(await remove(id), 404, 'resource_not_found', 'id');
    }
  });
});

describe('GET /v1/agents pagination', () => {
  let owner: SeededKey;
  let all: string[];
  const page = async (query: string) => {
    const res = await list(query, owner.key);
    expectStatus(res, 200);
    return res.body;
  };

  before(async () => {
    owner = await api.seed.key({ name: 'pager', ...UNLIMITED });
    for (let i = 0; i < 23; i++) await made({ name: `a${i}` }, owner.key);
    const gone = await made({ name: 'deleted' }, owner.key);
    expectStatus(await remove(gone.id, owner.key), 200);
    all = (await page('?limit=100')).data.map((a) => a.id);
  });

  it('lists the live agents newest first, 20 by default', async () => {
    assert.equal(all.length, 23);
    assert.deepEqual([...all].sort().reverse(), all);
    const first = await page('');
    assert.deepEqual(first.data.map((a) => a.id), all.slice(0, 20));
    assert.equal(first.hasMore, true);
    assert.equal(first.nextCursor, all[19]);
    assert.equal('prevCursor' in first, false);
    assert.deepEqual(Object.keys(first.data[0]!).sort(), AGENT_FIELDS);
  });

  it('walks forwards and back without repeats or skips', async () => {
    const forward: string[][] = [];
    let cursor = '';
    for (;;) {
      const p = await page(`?limit=7${cursor}`);
      forward.push(p.data.map((a) => a.id));
      if (!p.hasMore) break;
      cursor = `&after=${p.nextCursor}`;
    }
    assert.deepEqual(forward.flat(), all);
    assert.equal(forward.length, 4);
    const backward: string[][] = [];
    cursor = `&before=${all.at(-1)}`;
    for (;;) {
      const p = await page(`?limit=7${cursor}`);
      backward.unshift(p.data.map((a) => a.id));
      if (!p.prevCursor) break;
      cursor = `&before=${p.prevCursor}`;
    }
    assert.deepEqual(backward.flat(), all.slice(0, -1));
  });

  it('refuses bad cursors and limits', async () => {
    expectError(await list('?after=key_01JD8X3ZQ2N6W5V4T3S2R1P0MK', owner.key), 400, 'invalid_cursor', 'after');
    expectError(await list(`?after=${all[0]}&before=${all[1]}`, owner.key), 400, 'parameter_conflict');
    for (const limit of ['0', '101', 'x', '1.5']) expectError(await list(`?limit=${limit}`, owner.key), 400, 'invalid_parameter', 'limit');
    expectError(await list('?name=x', owner.key), 400, 'unknown_parameter', 'name');
  });
});
