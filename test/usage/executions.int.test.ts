import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions } from '../dashboard';
import type { ErrorCode } from '../../server/platform/errors';
import { expectError, expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, waitFor, type Execution } from '../executions/helpers';
import { assertPercentiles, dayStart, durationOf, HOUR_MS, usage, usageWhen, type Answer, type ExecutionRow } from './helpers';

// GET /v1/analytics/executions (docs/analytics.md) against executions with known outcomes,
// tokens, tool calls and durations: a live agent on a priced model (fake OpenAI-compatible
// server with latencies spread out), one on an unpriced model, and a test-mode agent on the
// sandbox that calls a tool. Every figure is checked against the executions themselves.

const PRICE = { input: 2.5, output: 10 };
const PRICED = 'openai-compatible/fake-1';
const UNPRICED = 'openai-compatible/unpriced-1';

let api: TestServer;
let fake: FakeOpenAI;
let tools: ToolServer;
let live: SeededKey;
let test: SeededKey;
let stranger: SeededKey;
let pricedAgent: string;
let unpricedAgent: string;
let sandboxAgent: string;
const ran: { live: Execution[]; test: Execution[] } = { live: [], test: [] };

async function run(key: SeededKey, agentId: string, input: string): Promise<Execution> {
  const res = await execute(api, key.key, agentId, { input, wait: true });
  expectStatus(res, 200);
  return res.body;
}

before(async () => {
  fake = await startFakeOpenAI();
  tools = await startToolServer();
  api = await startServer({
    dashboardSession: testSessions(),
    env: {
      OPENAI_COMPATIBLE_BASE_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      MODEL_PRICES: JSON.stringify({ [PRICED]: PRICE }),
      // The first test compacts itself, after reading the answer from the records: the server's
      // compactor (every 2 s by default) got there first when the set-up ran slow.
      USAGE_COMPACT_SECONDS: '3600',
    },
  });
  live = await api.seed.key({ ...UNLIMITED, environment: 'live' });
  test = await api.seed.key({ workspace: live.workspace, environment: 'test' });
  stranger = await api.seed.key({ ...UNLIMITED, environment: 'live' });
  pricedAgent = await createAgent(api, live.key, { model: PRICED });
  unpricedAgent = await createAgent(api, live.key, { model: UNPRICED });
  sandboxAgent = await createAgent(api, test.key, {
    model: 'sandbox/echo',
    tools: [{ type: 'http', name: 'lookup', description: 'Looks up', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
  });

  // Succeeded runs whose durations spread from ~10 ms to ~650 ms, two failures, one cancel.
  for (let i = 0; i < 12; i++) {
    fake.set({ latencyMs: 5 + i * 55 });
    ran.live.push(await run(live, pricedAgent, `question ${i}`));
  }
  fake.set({ latencyMs: 1, status: 500 });
  ran.live.push(await run(live, pricedAgent, 'this fails'), await run(live, pricedAgent, 'this fails too'));
  fake.reset();
  const slow = await execute(api, live.key, pricedAgent, { input: 'be slow please' });
  expectStatus(slow, 202);
  await waitFor(api, live.key, slow.body.id, (e) => e.status === 'running');
  expectStatus(await api.request('POST', `/v1/executions/${slow.body.id}/cancel`, { key: live.key }), 200);
  ran.live.push(await waitFor(api, live.key, slow.body.id));
  ran.live.push(await run(live, unpricedAgent, 'no price for me'));
  ran.test.push(await run(test, sandboxAgent, 'lookup the weather'), await run(test, sandboxAgent, 'just echo'));
});

after(async () => {
  await api?.close();
  await fake?.close();
  await tools?.close();
});

/** What the executions say the row over `list` must hold. */
function expected(list: Execution[], price?: { input: number; output: number }) {
  const count = (s: string) => list.filter((e) => e.status === s).length;
  const inputTokens = list.reduce((n, e) => n + e.usage.inputTokens, 0);
  const outputTokens = list.reduce((n, e) => n + e.usage.outputTokens, 0);
  return {
    executions: list.length,
    succeeded: count('succeeded'),
    failed: count('failed'),
    cancelled: count('cancelled'),
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    toolCalls: list.reduce((n, e) => n + e.steps.reduce((m, s) => m + s.toolCalls.length, 0), 0),
    cost: price ? list.reduce((c, e) => c + (e.usage.inputTokens * price.input + e.usage.outputTokens * price.output) / 1e6, 0) : undefined,
  };
}

function assertCounts(row: ExecutionRow, want: ReturnType<typeof expected>, what: string) {
  const { cost: _cost, ...counts } = want;
  const { agentId: _a, model: _m, status: _s, costUsd: _c, durationMs: _d, ...got } = row;
  assert.deepEqual(got, counts, what);
}

/** The rows of a grouped answer merged across its buckets, by group. */
function byGroup(a: Answer<ExecutionRow>, field: 'agentId' | 'model' | 'status'): Map<string, ExecutionRow[]> {
  const out = new Map<string, ExecutionRow[]>();
  for (const b of a.data) for (const r of b.results) out.set(r[field]!, [...(out.get(r[field]!) ?? []), r]);
  return out;
}

const start = () => dayStart(1);

describe('GET /v1/analytics/executions', () => {
  it('counts every finished execution exactly once, at once and again after compaction', async () => {
    const want = expected(ran.live);
    const first = await usageWhen<ExecutionRow>(api, live.key, 'executions', { start: start() }, (a) => a.totals.executions === want.executions);
    assertCounts(first.totals, want, 'totals');
    assert.equal(first.granularity, 'day');
    assert.equal(first.data.length, 2, 'yesterday and today, every bucket listed');
    const summed = first.data.flatMap((b) => b.results).reduce((n, r) => n + r.executions, 0);
    assert.equal(summed, want.executions);

    const [waiting] = await api.query<{ n: number }>(sql`select count(*)::int as n from usage_execution_records`);
    assert.ok(waiting!.n > 0, 'the records are not compacted yet (USAGE_COMPACT_SECONDS is an hour here)');
    const { compactAll } = await import('../../server/modules/usage/compactor');
    await compactAll(api.db);
    const [left] = await api.query<{ n: number }>(sql`select count(*)::int as n from usage_execution_records`);
    assert.equal(left!.n, 0);
    const second = await usage<ExecutionRow>(api, live.key, 'executions', { start: start() });
    expectStatus(second, 200);
    assert.deepEqual(second.body, first, 'the same answer from rollups as from records');
    await compactAll(api.db);
    assert.deepEqual((await usage<ExecutionRow>(api, live.key, 'executions', { start: start() })).body, first, 'compacting again changes nothing');
  });

  it('groups by agent with tokens, tool calls and the cost from the price table (null for an unpriced model)', async () => {
    const a = (await usage<ExecutionRow>(api, live.key, 'executions', { start: start(), groupBy: 'agentId' })).body;
    const groups = byGroup(a, 'agentId');
    assert.deepEqual([...groups.keys()].sort(), [pricedAgent, unpricedAgent].sort());
    const priced = ran.live.filter((e) => e.agentId === pricedAgent);
    const [row] = groups.get(pricedAgent)!;
    assertCounts(row!, expected(priced), 'priced agent');
    assert.ok(Math.abs(row!.costUsd! - expected(priced, PRICE).cost!) < 1e-9, `cost ${row!.costUsd} vs ${expected(priced, PRICE).cost}`);
    assert.equal(groups.get(unpricedAgent)![0]!.costUsd, null, 'a live model without a price has an unknown cost, not 0');
    assert.equal(a.totals.costUsd, null, 'totals holding an unpriced execution are unknown too');

    const only = (await usage<ExecutionRow>(api, live.key, 'executions', { start: start(), agentId: pricedAgent })).body;
    assert.ok(Math.abs(only.totals.costUsd! - expected(priced, PRICE).cost!) < 1e-9);
    assert.equal(only.totals.executions, priced.length);
  });

  it('gives duration percentiles within 5 % of the executions’ own, per group and merged', async () => {
    const a = (await usage<ExecutionRow>(api, live.key, 'executions', { start: start(), groupBy: 'agentId,status' })).body;
    const succeeded = ran.live.filter((e) => e.agentId === pricedAgent && e.status === 'succeeded');
    const rows = a.data.flatMap((b) => b.results).filter((r) => r.agentId === pricedAgent && r.status === 'succeeded');
    assert.equal(rows.reduce((n, r) => n + r.executions, 0), succeeded.length);
    if (rows.length === 1) assertPercentiles(rows[0]!.durationMs, succeeded.map((e) => durationOf(e)!), 'priced agent, succeeded');
    const all = ran.live.map(durationOf).filter((d): d is number => d !== null);
    assertPercentiles(a.totals.durationMs, all, 'totals');
  });

  it('groups by status and model, filters by status and model, largest group first', async () => {
    const a = (await usage<ExecutionRow>(api, live.key, 'executions', { start: start(), groupBy: 'status,model', status: 'succeeded' })).body;
    for (const b of a.data) {
      for (const r of b.results) assert.equal(r.status, 'succeeded');
      const sizes = b.results.map((r) => r.executions);
      assert.deepEqual(sizes, [...sizes].sort((x, y) => y - x));
    }
    assert.equal(a.totals.executions, ran.live.filter((e) => e.status === 'succeeded').length);
    assert.equal(a.totals.status, undefined, 'totals carry no group fields');
    const models = byGroup(a, 'model');
    assert.deepEqual([...models.keys()].sort(), [PRICED, UNPRICED]);
    const byModel = (await usage<ExecutionRow>(api, live.key, 'executions', { start: start(), model: UNPRICED })).body;
    assert.equal(byModel.totals.executions, 1);
    const none = (await usage<ExecutionRow>(api, live.key, 'executions', { start: start(), agentId: 'agt_unknown' })).body;
    assert.equal(none.totals.executions, 0, 'an unknown id gives empty rows, not 404');
    assert.equal(none.totals.durationMs, null);
  });

  it('keeps workspaces and environments apart; test mode costs 0 and counts its tool calls', async () => {
    const mine = await usageWhen<ExecutionRow>(api, test.key, 'executions', { start: start() }, (a) => a.totals.executions === ran.test.length);
    assertCounts(mine.totals, expected(ran.test), 'test mode');
    assert.equal(mine.totals.toolCalls, 1, 'the sandbox called the tool the input named');
    assert.equal(mine.totals.costUsd, 0);
    const theirs = (await usage<ExecutionRow>(api, stranger.key, 'executions', { start: start() })).body;
    assert.equal(theirs.totals.executions, 0);
    assert.ok(theirs.data.every((b) => b.results.length === 1 && b.results[0]!.executions === 0));
  });

  it('answers the same from the cache of settled buckets as from the database', async () => {
    const { BucketCache } = await import('../../server/modules/usage/bucket-cache');
    const { seriesPage } = await import('../../server/modules/usage/series');
    const { executionSeries, EXECUTION_GROUPS } = await import('../../server/modules/usage/executions');
    const { planRange } = await import('../../server/modules/usage/range');
    const scope = { workspaceId: live.workspace.id, environment: 'live' as const };
    const cache = new BucketCache(100_000);
    const uncached = new BucketCache(0);
    for (const [granularity, from] of [['hour', new Date(Date.now() - 30 * HOUR_MS).toISOString()], ['day', start()]] as const) {
      const range = planRange({ start: from, granularity, limit: 40 });
      for (const groups of [[], [['agentId', EXECUTION_GROUPS.agentId]], [['status', EXECUTION_GROUPS.status], ['model', EXECUTION_GROUPS.model]]] as [string, string][][]) {
        // "Now" a day later: every bucket of the range has settled.
        const later = Date.now() + 86_400_000;
        const fresh = await seriesPage(api.db, scope, executionSeries({}), range, groups, later, uncached);
        assert.deepEqual(await seriesPage(api.db, scope, executionSeries({}), range, groups, later, cache), fresh, 'filled');
        assert.deepEqual(await seriesPage(api.db, scope, executionSeries({}), range, groups, later, cache), fresh, 'from the cache');
      }
    }
    assert.ok(cache.size > 0);
    assert.equal(uncached.size, 0);
  });

  it('refuses to answer more than 10,000 groups at once, naming groupBy; ungrouped or filtered it answers', async () => {
    const crowded = await api.seed.key({ ...UNLIMITED, environment: 'live' });
    await api.db.execute(sql`insert into usage_execution_rollups (workspace_id, environment, granularity, bucket, agent_id, model, status, executions, started, input_tokens, output_tokens, tool_calls, cost_usd, unpriced, duration_hist)
      select ${crowded.workspace.id}, 'live', 'day', ${start()}::timestamptz, 'agt_many_' || g, 'sandbox/echo', 'succeeded', 1, 1, 1, 1, 0, 0, 0, '100:1'
      from generate_series(1, 10001) g`);
    expectError(await usage(api, crowded.key, 'executions', { start: start(), groupBy: 'agentId' }), 400, 'invalid_parameter', 'groupBy');
    const whole = await usage<ExecutionRow>(api, crowded.key, 'executions', { start: start() });
    expectStatus(whole, 200);
    assert.equal(whole.body.totals.executions, 10_001);
    const one = await usage<ExecutionRow>(api, crowded.key, 'executions', { start: start(), groupBy: 'agentId', agentId: 'agt_many_7' });
    expectStatus(one, 200);
    assert.equal(one.body.totals.executions, 1);
  });

  it('lists every hour bucket, empty ones as zeros, over contiguous pages with the same totals', async () => {
    const from = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 29 * HOUR_MS).toISOString();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let total = 0;
    do {
      const res = await usage<ExecutionRow>(api, live.key, 'executions', { start: from, granularity: 'hour', limit: 7, ...(cursor ? { after: cursor } : {}) });
      expectStatus(res, 200);
      pages++;
      for (const b of res.body.data) {
        if (seen.length) assert.equal(b.start, new Date(new Date(seen.at(-1)!).getTime() + HOUR_MS).toISOString(), 'no gap between pages');
        assert.equal(new Date(b.end).getTime() - new Date(b.start).getTime(), HOUR_MS);
        assert.equal(b.results.length, 1);
        seen.push(b.start);
        total += b.results[0]!.executions;
      }
      assert.equal(res.body.totals.executions, ran.live.length, 'totals cover the whole range on every page');
      assert.equal(res.body.hasMore, res.body.nextCursor !== undefined);
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.equal(seen.length, 30, '30 hours, the current one included');
    assert.equal(pages, 5);
    assert.equal(total, ran.live.length);
  });
});

describe('the dashboard face', () => {
  it('analytics.executions answers as /v1 does, for the environment chosen in the header', async () => {
    const rest = (await usage<ExecutionRow>(api, live.key, 'executions', { start: start(), groupBy: 'agentId' })).body;
    const res = await dashboardCall<Answer<ExecutionRow>>(api, live.workspace, 'query', 'analytics.executions', { start: start(), groupBy: 'agentId' }, { environment: 'live' });
    assert.deepEqual(res.result, rest);
    const test = await dashboardCall<Answer<ExecutionRow>>(api, live.workspace, 'query', 'analytics.executions', { start: start() }, { environment: 'test' });
    assert.equal(test.result!.totals.executions, ran.test.length);
  });

  it('analytics.byGroup gives one row per agent over the whole range, percentiles merged over it', async () => {
    const res = await dashboardCall<{ executions: ExecutionRow[] }>(api, live.workspace, 'query', 'analytics.byGroup', { series: 'executions', start: start(), groupBy: 'agentId' }, { environment: 'live' });
    const rows = res.result!.executions;
    assert.deepEqual(rows.map((r) => r.agentId), [pricedAgent, unpricedAgent], 'largest first');
    const priced = ran.live.filter((e) => e.agentId === pricedAgent);
    assertCounts(rows[0]!, expected(priced), 'priced agent over the range');
    assertPercentiles(rows[0]!.durationMs, priced.map(durationOf).filter((d): d is number => d !== null), 'priced agent over the range');
    const bad = await dashboardCall(api, live.workspace, 'query', 'analytics.byGroup', { series: 'executions', start: start(), groupBy: 'color' }, { environment: 'live' });
    assert.equal(bad.error?.data.apiError?.param, 'groupBy');
  });
});

describe('analytics input errors name their parameter', () => {
  const cases: [string, Record<string, string>, number, ErrorCode, string][] = [
    ['start missing', {}, 400, 'missing_required_field', 'start'],
    ['start not a date', { start: 'yesterday' }, 400, 'invalid_parameter', 'start'],
    ['start not a calendar day', { start: '2026-02-30' }, 400, 'invalid_parameter', 'start'],
    ['start past the hour retention', { start: new Date(Date.now() - 91 * 86_400_000).toISOString(), granularity: 'hour' }, 400, 'invalid_parameter', 'start'],
    ['start past the day retention', { start: new Date(Date.now() - 800 * 86_400_000).toISOString() }, 400, 'invalid_parameter', 'start'],
    ['end before start', { start: dayStart(1), end: dayStart(2) }, 400, 'invalid_parameter', 'end'],
    ['end not a date', { start: dayStart(1), end: 'soon' }, 400, 'invalid_parameter', 'end'],
    ['granularity', { start: dayStart(1), granularity: 'minute' }, 400, 'invalid_parameter', 'granularity'],
    ['groupBy unknown field', { start: dayStart(1), groupBy: 'agentId,keyId' }, 400, 'invalid_parameter', 'groupBy'],
    ['groupBy __proto__', { start: dayStart(1), groupBy: '__proto__' }, 400, 'invalid_parameter', 'groupBy'],
    ['limit 0', { start: dayStart(1), limit: '0' }, 400, 'invalid_parameter', 'limit'],
    ['limit over an hour page', { start: dayStart(1), granularity: 'hour', limit: '169' }, 400, 'invalid_parameter', 'limit'],
    ['limit over a day page', { start: dayStart(1), limit: '367' }, 400, 'invalid_parameter', 'limit'],
    ['status not final', { start: dayStart(1), status: 'running' }, 400, 'invalid_parameter', 'status'],
    ['cursor garbage', { start: dayStart(1), after: 'exe_123' }, 400, 'invalid_cursor', 'after'],
    ['cursor of another granularity', { start: dayStart(1), after: Buffer.from(`u1:hour:${Date.now() - (Date.now() % HOUR_MS)}`).toString('base64url') }, 400, 'invalid_cursor', 'after'],
    ['unknown parameter', { start: dayStart(1), keyId: 'key_x' }, 400, 'unknown_parameter', 'keyId'],
  ];
  for (const [name, query, status, code, param] of cases) {
    it(name, async () => {
      expectError(await usage(api, live.key, 'executions', query), status, code, param);
    });
  }

  it('requests: groupBy is keyId only', async () => {
    expectError(await usage(api, live.key, 'requests', { start: dayStart(1), groupBy: 'agentId' }), 400, 'invalid_parameter', 'groupBy');
  });
});
