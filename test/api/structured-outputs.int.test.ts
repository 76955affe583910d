import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { readStream } from '../executions/helpers';

// Structured outputs (docs/versions.md, "Structured outputs"): an agent's (or one execute's)
// outputSchema in the strict subset; the provider's native structured output (OpenAI's strict
// json_schema, also to openai-compatible servers); the sandbox answering valid objects; one
// repair turn; output_invalid with the errors; outputJson beside output.

let api: TestServer;
let fake: FakeOpenAI;
before(async () => {
  fake = await startFakeOpenAI();
  api = await startServer({ env: { OPENAI_COMPATIBLE_BASE_URL: fake.url } });
});
after(async () => {
  await api?.close();
  await fake?.close();
});

const ORDER = {
  type: 'object',
  properties: {
    orderId: { type: 'string', description: 'The order' },
    status: { type: 'string', enum: ['open', 'shipped', 'refunded'] },
    total: { type: ['number', 'null'] },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku', 'qty'], additionalProperties: false } },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['orderId', 'status', 'total', 'items', 'note'],
  additionalProperties: false,
};

type Run = { id: string; status: string; output: string | null; outputJson: unknown; steps: unknown[]; usage: { totalTokens: number }; error: { code: string; message: string } | null };
const tenant = (): Promise<SeededKey> => api.seed.key({ ...UNLIMITED, environment: 'live' });
const agent = async (key: SeededKey, body: Record<string, unknown>) => {
  const res = await api.request<{ id: string; version: number }>('POST', '/v1/agents', { key: key.key, body: { name: 'Structured', ...body } });
  expectStatus(res, 201);
  return res.body;
};
const run = (key: SeededKey, id: string, body: Record<string, unknown> = {}) => api.request<Run>('POST', `/v1/agents/${id}/execute`, { key: key.key, body: { input: 'status of order 1042', wait: true, ...body } });

describe('structured outputs', () => {
  it('the sandbox answers an object valid against the agent’s schema: outputJson beside output, in the stream’s final event too', async () => {
    const key = await tenant();
    const a = await agent(key, { outputSchema: ORDER });
    const res = await run(key, a.id);
    expectStatus(res, 200);
    assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
    const json = res.body.outputJson as Record<string, unknown>;
    assert.deepEqual(Object.keys(json).sort(), ['items', 'note', 'orderId', 'status', 'total']);
    assert.equal(json.status, 'open');
    assert.deepEqual(JSON.parse(res.body.output!), json, 'output is the JSON text');
    const s = await readStream(`${api.url}/v1/agents/${a.id}/execute`, { method: 'POST', key: key.key, body: { input: 'again', stream: true } });
    const last = s.events.at(-1)!;
    assert.equal(last.event, 'execution.succeeded');
    assert.deepEqual(Object.keys((last.data as unknown as { execution: { outputJson: object } }).execution.outputJson).sort(), ['items', 'note', 'orderId', 'status', 'total']);
  });

  it('one execute’s schema instead of the agent’s; none: outputJson null', async () => {
    const key = await tenant();
    const a = await agent(key, {});
    const plain = await run(key, a.id);
    assert.equal(plain.body.outputJson, null);
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const structured = await run(key, a.id, { outputSchema: schema });
    assert.equal(structured.body.status, 'succeeded');
    assert.deepEqual(Object.keys(structured.body.outputJson as object), ['answer']);
  });

  it('sends OpenAI’s strict json_schema to an openai-compatible server and takes its object', async () => {
    const key = await tenant();
    const a = await agent(key, { model: 'openai-compatible/fake-1', outputSchema: ORDER });
    const res = await run(key, a.id);
    assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
    const sent = fake.requests.at(-1)!.body;
    assert.equal(sent.response_format?.type, 'json_schema');
    assert.equal(sent.response_format?.json_schema?.strict, true);
    assert.deepEqual(sent.response_format?.json_schema?.schema, ORDER);
    assert.equal((res.body.outputJson as { status: string }).status, 'open');
  });

  it('an invalid answer gets exactly one repair turn (told the errors); still invalid: output_invalid with them', async () => {
    const key = await tenant();
    const a = await agent(key, { model: 'openai-compatible/fake-1', outputSchema: ORDER });
    // First answer not JSON, the repair valid.
    let calls = 0;
    fake.set({ reply: () => (calls++ === 0 ? 'Sure! The order is shipped.' : JSON.stringify({ orderId: '1042', status: 'shipped', total: 12.5, items: [], note: null })) });
    try {
      const repaired = await run(key, a.id);
      assert.equal(repaired.body.status, 'succeeded', JSON.stringify(repaired.body.error));
      assert.equal(repaired.body.steps.length, 2, 'the repair turn is a step');
      assert.deepEqual(repaired.body.outputJson, { orderId: '1042', status: 'shipped', total: 12.5, items: [], note: null });
      const told = fake.requests.at(-1)!.body.messages!.at(-1)!;
      assert.equal(told.role, 'user');
      assert.match(String(told.content), /not valid for the required JSON Schema/);

      // Valid JSON, wrong shape, twice: failed after one repair, the errors named.
      fake.set({ reply: () => JSON.stringify({ orderId: 1042, status: 'lost' }) });
      const before = fake.requests.length;
      const failed = await run(key, a.id);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.error?.code, 'output_invalid');
      assert.match(failed.body.error!.message, /must/);
      assert.equal(fake.requests.length - before, 2, 'exactly one repair turn');
      assert.equal(failed.body.outputJson, null);
      assert.ok(failed.body.usage.totalTokens > 0, 'both calls used tokens');
    } finally {
      fake.set({ reply: undefined });
    }
  });

  it('a change of outputSchema is a new version', async () => {
    const key = await tenant();
    const a = await agent(key, {});
    const res = await api.request<{ version: number; outputSchema: unknown }>('PATCH', `/v1/agents/${a.id}`, { key: key.key, body: { outputSchema: ORDER } });
    assert.equal(res.body.version, 2);
    assert.deepEqual(res.body.outputSchema, ORDER);
  });

  it('refuses what strict providers do not accept, naming the construct; nothing written', async () => {
    const key = await tenant();
    const obj = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: props, required: Object.keys(props), additionalProperties: false, ...extra });
    let deep: Record<string, unknown> = obj({ leaf: { type: 'string' } });
    for (let i = 0; i < 5; i++) deep = obj({ inner: deep });
    const many = obj(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`p${i}`, { type: 'string' }])));
    const cases: [unknown, RegExp][] = [
      [{ type: 'string' }, /root/],
      [obj({ a: { type: 'string', pattern: '^a' } }), /"pattern"/],
      [obj({ a: { $ref: '#/x' } }), /"\$ref"/],
      [obj({ a: { oneOf: [{ type: 'string' }] } }), /"oneOf"/],
      [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, /additionalProperties/],
      [{ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'], additionalProperties: false }, /required/],
      [obj({ a: { type: 'date' } }), /"date"/],
      [obj({ a: { type: 'array' } }), /items/],
      [deep, /deeper than 5/],
      [many, /more than 100 properties/],
    ];
    const count = async () => (await api.request<{ data: unknown[] }>('GET', '/v1/agents', { key: key.key })).body.data.length;
    const before = await count();
    for (const [schema, why] of cases) {
      const res = await api.request<{ error: { message: string } }>('POST', '/v1/agents', { key: key.key, body: { name: 'Bad', outputSchema: schema } });
      expectError(res, 400, 'invalid_parameter', 'outputSchema');
      assert.match((res.body as { error: { message: string } }).error.message, why);
    }
    // A `__proto__` property, which zod would drop without a word, on the agent and on one execute.
    const proto = '{"name":"Bad","outputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"additionalProperties":false}}';
    const raw = await fetch(`${api.url}/v1/agents`, { method: 'POST', headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' }, body: proto });
    assert.equal(raw.status, 400);
    assert.equal(((await raw.json()) as { error: { param: string } }).error.param, 'outputSchema');
    assert.equal(await count(), before);
    const a = await agent(key, {});
    expectError(await run(key, a.id, { outputSchema: { type: 'object', properties: {}, required: [], additionalProperties: true } }), 400, 'invalid_parameter', 'outputSchema');
    const executions = await api.request<{ data: unknown[] }>('GET', `/v1/executions?agentId=${a.id}`, { key: key.key });
    assert.equal(executions.body.data.length, 0);
  });
});
