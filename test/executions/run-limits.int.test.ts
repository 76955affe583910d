// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, expectStatus } from '../expect';
import type { ToolServer } from '../fakes/tool-server';
import type { SeededKey, TestServer } from '../harness';
import { execute, startWithTools } from './helpers';

// An agent's run limit `maxTotalTokens` (docs/api.md, "Agents"): a run whose tokens pass it ends
// `failed` with `max_tokens_exceeded` after that step, and no further model call starts.

let api: TestServer;
let tools: ToolServer;
let owner: SeededKey;
let close: (() => Promise<void>) | undefined;

before(async () => ({ api, tools, owner, close } = await startWithTools()));
after(async () => close?.());

const lookup = () => ({
  type: 'http',
  name: 'lookup',
  description: 'Looks up an order',
  url: `${tools.url}/echo`,
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
});

async function agent(body: Record<string, unknown>): Promise<string> {
  const res = await api.request<{ id: string; maxTotalTokens: number | null }>('POST', '/v1/agents', { key: owner.key, body: { name: 'Capped', tools: [lookup()], ...body } });
  expectStatus(res, 201);
  return res.body.id;
}

describe('maxTotalTokens', () => {
  it('a run past the cap ends failed after that step: its tool calls ran, no further model call', async () => {
    const id = await agent({ maxTotalTokens: 5 });
    const before = tools.requests.length;
    const res = await execute(api, owner.key, id, { input: 'please lookup order 1042', wait: true });
    expectStatus(res, 200);
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.error?.code, 'max_tokens_exceeded');
    assert.match(res.body.error!.message, /maxTotalTokens \(5\)/);
    assert.equal(res.body.steps.length, 1, 'one model call');
    assert.equal(res.body.steps[0]!.toolCalls.length, 1);
    assert.equal(tools.requests.slice(before).filter((r) => r.path === '/echo').length, 1, 'the step’s call ran');
    assert.ok(res.body.usage.totalTokens > 5);
    assert.equal(res.body.output, null);
  });

  it('a run within the cap is untouched; null is no cap', async () => {
    for (const cap of [100_000, null]) {
      const id = await agent({ maxTotalTokens: cap });
      const res = await execute(api, owner.key, id, { input: 'please lookup order 7', wait: true });
      assert.equal(res.body.status, 'succeeded', JSON.stringify(res.body.error));
      assert.equal(res.body.steps.length, 2);
    }
  });

  it('is shown, changed and cleared by PATCH; bad values are refused', async () => {
    const id = await agent({});
    const shown = await api.request<{ maxTotalTokens: number | null }>('GET', `/v1/agents/${id}`, { key: owner.key });
    assert.equal(shown.body.maxTotalTokens, null);
    const set = await api.request<{ maxTotalTokens: number | null }>('PATCH', `/v1/agents/${id}`, { key: owner.key, body: { maxTotalTokens: 1_000 } });
    assert.equal(set.body.maxTotalTokens, 1_000);
    const cleared = await api.request<{ maxTotalTokens: number | null }>('PATCH', `/v1/agents/${id}`, { key: owner.key, body: { maxTotalTokens: null } });
    assert.equal(cleared.body.maxTotalTokens, null);
    for (const bad of [0, -1, 1.5, 100_000_001, '10']) {
      expectError(await api.request('PATCH', `/v1/agents/${id}`, { key: owner.key, body: { maxTotalTokens: bad } }), 400, 'invalid_parameter', 'maxTotalTokens');
    }
  });
});
