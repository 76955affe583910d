import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { schedules } from '../../db/schema';
import type { tick as Tick } from '../../server/modules/schedules/ticker';
import type { BudgetView } from '../../server/modules/budgets/service';
import { expectError, expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startMcpServer, type FakeMcpServer } from '../fakes/mcp-server';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, waitFor, type Execution } from '../executions/helpers';
import { eventually } from '../eventually';

// Budgets enforced (docs/budgets.md): a `block` budget reached refuses execute and a schedule's
// run-now (402 `budget_exceeded`), skips occurrences, and stops a run before its next model call;
// `notify` never blocks; a live model with no price cannot run under a blocking USD budget; 50
// runs racing a budget overshoot it by at most one call each; alerts are sent once.

const PRICED = 'openai-compatible/fake-1';
const UNPRICED = 'openai-compatible/unpriced-1';

let api: TestServer;
let fake: FakeOpenAI;
let tools: ToolServer;
let mcp: FakeMcpServer;
let tick: typeof Tick;

before(async () => {
  fake = await startFakeOpenAI();
  tools = await startToolServer();
  mcp = await startMcpServer();
  api = await startServer({
    env: {
      OPENAI_COMPATIBLE_BASE_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      MODEL_PRICES: JSON.stringify({ [PRICED]: { input: 2.5, output: 10 } }),
      EXECUTION_CONCURRENCY: '50',
      // A call's answer reserved at 512 tokens rather than 4,096: the 20,000-token race keeps ~30
      // calls in flight instead of ~4 (the tests of reservations read it from the environment too).
      BUDGET_RESERVE_OUTPUT_TOKENS: '512',
    },
  });
  ({ tick } = await import('../../server/modules/schedules/ticker'));
});
after(async () => {
  await api?.close();
  await fake?.close();
  await tools?.close();
  await mcp?.close();
});

const tool = (name: string) => ({ type: 'http', name, description: `The ${name} tool`, url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } });

async function tenant(): Promise<SeededKey> {
  return api.seed.key({ ...UNLIMITED, customConcurrency: 60, environment: 'live' });
}

async function budget(key: SeededKey, body: Record<string, unknown>): Promise<BudgetView> {
  const res = await api.request<BudgetView>('POST', '/v1/budgets', { key: key.key, body: { name: 'Cap', action: 'block', period: 'day', ...body } });
  expectStatus(res, 201);
  return res.body;
}

const read = async (key: SeededKey, id: string) => (await api.request<BudgetView>('GET', `/v1/budgets/${id}`, { key: key.key })).body;

describe('a block budget reached', () => {
  it('refuses execute with 402, naming the budget and its reset; another agent still runs', async () => {
    const key = await tenant();
    const capped = await createAgent(api, key.key, { model: PRICED });
    const free = await createAgent(api, key.key, { model: PRICED });
    const b = await budget(key, { target: { type: 'agent', id: capped }, limit: { tokens: 200 }, timezone: 'Asia/Tokyo' });
    const first = await execute(api, key.key, capped, { input: 'hello', wait: true });
    assert.equal(first.body.status, 'succeeded', 'under the limit when it started');
    assert.equal((await read(key, b.id)).spent.tokens, first.body.usage.totalTokens, 'spent is the run’s tokens');
    // A prompt larger than what is left: the call does not start, and the budget is exceeded for the period.
    const big = await execute(api, key.key, capped, { input: `summarise ${'all of this text '.repeat(60)}`, wait: true });
    assert.equal(big.body.status, 'failed');
    assert.equal(big.body.error?.code, 'budget_exceeded');
    assert.match(big.body.error!.message, /what it has left cannot hold the next model call/);
    assert.equal(big.body.steps.length, 0, 'no model call');
    const now = await read(key, b.id);
    assert.equal(now.spent.tokens, first.body.usage.totalTokens, 'nothing more spent');
    assert.equal(now.status, 'exceeded');
    const refused = expectError(await execute(api, key.key, capped, { input: 'again', wait: true }), 402, 'budget_exceeded');
    assert.match(refused.message, new RegExp(`budget 'Cap' \\(${b.id}\\) is exceeded; it resets at ${now.resetsAt!.replace(/\./g, '\\.')}`));
    assert.equal(refused.type, 'invalid_request_error');
    const other = await execute(api, key.key, free, { input: 'hello', wait: true });
    assert.equal(other.body.status, 'succeeded');
    // Raised above what was spent, it lets runs through again.
    const raised = await api.request<BudgetView>('PATCH', `/v1/budgets/${b.id}`, { key: key.key, body: { limit: { tokens: 1_000_000 } } });
    assert.equal(raised.body.status, 'ok');
    assert.equal((await execute(api, key.key, capped, { input: 'hello', wait: true })).body.status, 'succeeded');
  });

  it('stops a running execution before its next model call (its tool call of that step ran)', async () => {
    const key = await tenant();
    const slowTool = { ...tool('lookup'), url: `${tools.url}/wait?ms=1000` };
    const agent = await createAgent(api, key.key, { model: PRICED, tools: [slowTool] });
    const other = await createAgent(api, key.key, { model: PRICED });
    await budget(key, { target: { type: 'workspace' }, limit: { tokens: 600 } });
    const run = execute(api, key.key, agent, { input: 'please lookup order 7', wait: true });
    await eventually('the tool called', async () => tools.requests.filter((r) => r.path === '/wait').length, (n) => n >= 1, { timeoutMs: 5_000, everyMs: 20 });
    // While its tool runs, another run's prompt is more than the workspace has left: exceeded.
    const big = await execute(api, key.key, other, { input: `summarise ${'all of this text '.repeat(200)}`, wait: true });
    assert.equal(big.body.error?.code, 'budget_exceeded');
    const res = await run;
    expectStatus(res, 200);
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.error?.code, 'budget_exceeded');
    assert.equal(res.body.steps.length, 1, 'one model call, then none');
    assert.equal(res.body.steps[0]!.toolResults.length, 1, 'the step’s call ran');
  });

  it('checks again before the first call of a run that took over a second to reach it (an MCP server slow to list)', async () => {
    // A run started in place takes its start's check for its first call only while it is fresh
    // (docs/budgets.md): here another run exceeds the budget while this one waits on its MCP server.
    const key = await tenant();
    const slow = await createAgent(api, key.key, { model: PRICED, tools: [{ type: 'mcp', name: 'Docs', url: `${mcp.base}/mcp-slow-list` }] });
    const quick = await createAgent(api, key.key, { model: PRICED });
    await budget(key, { target: { type: 'workspace' }, limit: { tokens: 10 } });
    // `wait`: started in place, as a waiting or streaming run is (an async one is queued).
    const slowRun = execute(api, key.key, slow, { input: 'slow to start, order 41', wait: true });
    await new Promise((r) => setTimeout(r, 300)); // its start has committed; its MCP server is listing
    // Its prompt is more than the 10 tokens: refused, and the budget is exceeded.
    const spender = await execute(api, key.key, quick, { input: 'what about order 42?', wait: true });
    expectStatus(spender, 200);
    assert.equal(spender.body.error?.code, 'budget_exceeded');
    const res = await slowRun;
    expectStatus(res, 200);
    const ended = res.body;
    assert.equal(ended.status, 'failed');
    assert.equal(ended.error?.code, 'budget_exceeded');
    assert.equal(ended.steps.length, 0, 'no model call');
    assert.equal(fake.requests.filter((r) => JSON.stringify(r.body).includes('order 41')).length, 0, 'the model never saw it');
  });

  it('refuses a schedule’s run-now and skips its occurrences', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED });
    const s = await api.request<{ id: string }>('POST', '/v1/schedules', { key: key.key, body: { agentId: agent, cron: '* * * * *', input: 'hello' } });
    expectStatus(s, 201);
    await budget(key, { target: { type: 'workspace' }, limit: { tokens: 1 } });
    await execute(api, key.key, agent, { input: 'spend it', wait: true });
    expectError(await api.request('POST', `/v1/schedules/${s.body.id}/run`, { key: key.key }), 402, 'budget_exceeded');
    await api.db.update(schedules).set({ nextRunAt: new Date(Date.now() - 1000) }).where(eq(schedules.id, s.body.id));
    await tick(api.db);
    const runs = await api.query<{ n: number }>(sql`select count(*)::int as n from executions where schedule_id = ${s.body.id}`);
    assert.equal(runs[0]!.n, 0, 'no execution for the occurrence');
    const [row] = await api.db.select().from(schedules).where(eq(schedules.id, s.body.id));
    assert.ok(row!.nextRunAt!.getTime() > Date.now(), 'the schedule moved on to its next occurrence');
  });

  it('refuses a live model with no price under a block USD budget; notify and token budgets let it run', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: UNPRICED });
    const notify = await budget(key, { target: { type: 'workspace' }, limit: { usd: '1' }, action: 'notify' });
    assert.equal((await execute(api, key.key, agent, { input: 'hello', wait: true })).body.status, 'succeeded');
    assert.equal((await read(key, notify.id)).spent.unpricedCalls, 1, 'counted as unpriced');
    await budget(key, { target: { type: 'agent', id: agent }, limit: { usd: '1' } });
    const refused = expectError(await execute(api, key.key, agent, { input: 'hello', wait: true }), 402, 'budget_exceeded');
    assert.match(refused.message, /no price/);
  });

  it('on a key counts that key’s runs only', async () => {
    const key = await tenant();
    const other = await api.seed.key({ workspace: key.workspace, environment: 'live' });
    const agent = await createAgent(api, key.key, { model: PRICED });
    const b = await budget(key, { target: { type: 'key', id: key.id }, limit: { tokens: 5 } });
    const mine = await execute(api, key.key, agent, { input: 'hello', wait: true });
    await execute(api, other.key, agent, { input: 'hello from the other key', wait: true });
    assert.equal((await read(key, b.id)).spent.tokens, mine.body.usage.totalTokens, 'the other key’s run is not counted');
    expectError(await execute(api, key.key, agent, { input: 'again', wait: true }), 402, 'budget_exceeded');
    assert.equal((await execute(api, other.key, agent, { input: 'again', wait: true })).body.status, 'succeeded');
  });
});

/** The start of this minute: an occurrence of `* * * * *` a tick now fires. */
const minuteStart = () => new Date(Math.floor(Date.now() / 60_000) * 60_000);

describe('a run started by a key is that key’s run', () => {
  // The attack review of 2026-11-28: a key whose own budget refused execute (402) created a
  // schedule and ran it now three times (202 each, three runs), and its budget never moved.
  it('a key’s run-now and its schedules’ occurrences count on its budget, and a reached block budget refuses them', async () => {
    const key = await tenant();
    const other = await api.seed.key({ workspace: key.workspace, environment: 'live' });
    const agent = await createAgent(api, key.key, { model: PRICED });
    const b = await budget(key, { target: { type: 'key', id: key.id }, limit: { tokens: 1000 } });
    const s = await api.request<{ id: string }>('POST', '/v1/schedules', { key: key.key, body: { agentId: agent, cron: '* * * * *', input: 'hello' } });
    expectStatus(s, 201);
    // Under the limit, run-now is the key's run: counted, and recorded as the key's.
    const now = await api.request<{ id: string }>('POST', `/v1/schedules/${s.body.id}/run`, { key: key.key });
    expectStatus(now, 202);
    const ran = await waitFor(api, key.key, now.body.id);
    assert.equal(ran.status, 'succeeded');
    assert.equal((await read(key, b.id)).spent.tokens, ran.usage.totalTokens, 'the run-now counted on the key’s budget');
    const [row] = await api.query<{ key_id: string | null }>(sql`select key_id from executions where id = ${now.body.id}`);
    assert.equal(row!.key_id, key.id);
    // The limit brought down to what was spent: reached.
    expectStatus(await api.request('PATCH', `/v1/budgets/${b.id}`, { key: key.key, body: { limit: { tokens: ran.usage.totalTokens } } }), 200);
    // Reached: execute, run-now and the schedule's occurrences are all refused.
    expectError(await execute(api, key.key, agent, { input: 'again', wait: true }), 402, 'budget_exceeded');
    for (let i = 0; i < 3; i++) expectError(await api.request('POST', `/v1/schedules/${s.body.id}/run`, { key: key.key }), 402, 'budget_exceeded');
    await api.db.update(schedules).set({ nextRunAt: minuteStart() }).where(eq(schedules.id, s.body.id));
    await tick(api.db);
    const runs = await api.query<{ n: number }>(sql`select count(*)::int as n from executions where schedule_id = ${s.body.id}`);
    assert.equal(runs[0]!.n, 1, 'no execution for the occurrence: the schedule is the key’s');
    // Another key running the same schedule now runs on its own account.
    const others = await api.request<{ id: string }>('POST', `/v1/schedules/${s.body.id}/run`, { key: other.key });
    expectStatus(others, 202);
    assert.equal((await waitFor(api, other.key, others.body.id)).status, 'succeeded');
    const audit = await api.query<{ actor_id: string }>(sql`select actor_id from audit_events where action = 'schedule.run_now' and target_id = ${s.body.id} order by id`);
    assert.deepEqual(audit.map((r) => r.actor_id), [key.id, other.id], 'each run-now audited as its key’s');
  });

  it('occurrences of a schedule made by a key count on that key’s budget', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED });
    const b = await budget(key, { target: { type: 'key', id: key.id }, limit: { tokens: 1000 } });
    const s = await api.request<{ id: string }>('POST', '/v1/schedules', { key: key.key, body: { agentId: agent, cron: '* * * * *', input: 'hello' } });
    expectStatus(s, 201);
    await api.db.update(schedules).set({ nextRunAt: minuteStart() }).where(eq(schedules.id, s.body.id));
    await tick(api.db);
    const [fired] = await api.query<{ id: string; key_id: string | null }>(sql`select id, key_id from executions where schedule_id = ${s.body.id}`);
    assert.equal(fired!.key_id, key.id, 'the occurrence is the key’s run');
    const done = await waitFor(api, key.key, fired!.id);
    assert.equal((await read(key, b.id)).spent.tokens, done.usage.totalTokens);
  });
});

describe('notify budgets and alerts', () => {
  it('never block; threshold, exceeded alerts go out once per period', async () => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED });
    const b = await budget(key, { target: { type: 'workspace' }, limit: { tokens: 60 }, action: 'notify', alertAt: [10, 50, 100] });
    for (let i = 0; i < 4; i++) assert.equal((await execute(api, key.key, agent, { input: `hello number ${i}`, wait: true })).body.status, 'succeeded');
    const spent = (await read(key, b.id)).spent.tokens;
    assert.ok(spent > 60, `spent ${spent}`);
    // A run's last call is charged in its finish, whose signal has a worker send the alerts: soon after.
    type Alert = { type: string; data: { object: BudgetView & { percent?: number } } };
    const readAlerts = async () =>
      (await api.request<{ data: Alert[] }>('GET', '/v1/events?limit=100', { key: key.key })).body.data.filter((e) => e.type.startsWith('budget.')).reverse();
    const alerts = await eventually('the alerts', readAlerts, (a) => a.length >= 4, { timeoutMs: 5_000, everyMs: 50 });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await readAlerts()).length, alerts.length, 'and no more');
    const seen = alerts.map((e) => `${e.type}${e.data.object.percent === undefined ? '' : ` ${e.data.object.percent}`}`);
    assert.deepEqual(seen, ['budget.threshold_reached 10', 'budget.threshold_reached 50', 'budget.threshold_reached 100', 'budget.exceeded'], 'each once, in order');
    assert.equal(alerts.at(-1)!.data.object.id, b.id);
    assert.equal(alerts.at(-1)!.data.object.status, 'exceeded');
  });
});

describe('runs racing a budget', () => {
  // Each call reserves its worst case before it starts (docs/budgets.md, "Reservations"): calls in
  // flight together cannot pass the limit. Before, 50 runs at once against a 20-token budget
  // spent 264 tokens (13.2×), and 828–900 against 100 tokens at a hosted pace (the attack review
  // of 2026-11-28); the target is 1.5× at most.
  const race = async (opts: { limit: number; latencyMs: number; runs: number; agent: Record<string, unknown>; input: (i: number) => string }) => {
    const key = await tenant();
    const agent = await createAgent(api, key.key, { model: PRICED, ...opts.agent });
    // `total`: a race that crosses midnight UTC would otherwise count its calls in two days' periods
    // (seen: spent 20,126 of the new day against 30,908 used by the runs, at 00:01 UTC).
    const b = await budget(key, { target: { type: 'agent', id: agent }, limit: { tokens: opts.limit }, period: 'total' });
    fake.set({ latencyMs: opts.latencyMs });
    try {
      const answers = await Promise.all(Array.from({ length: opts.runs }, (_, i) => execute(api, key.key, agent, { input: opts.input(i) })));
      // A start after the budget was found exceeded is refused (402), as it should be; the rest run.
      for (const r of answers.filter((a) => a.status !== 202)) expectError(r, 402, 'budget_exceeded');
      const started = answers.filter((a) => a.status === 202);
      const done: Execution[] = await Promise.all(started.map((r) => waitFor(api, key.key, r.body.id, undefined, 90_000)));
      for (const e of done) assert.ok(e.status === 'succeeded' || e.error?.code === 'budget_exceeded', JSON.stringify(e.error));
      const spent = (await read(key, b.id)).spent.tokens;
      assert.equal(spent, done.reduce((n, e) => n + e.usage.totalTokens, 0), 'spent counts every call exactly');
      const succeeded = done.filter((e) => e.status === 'succeeded').length;
      if (process.env.BUDGET_RACE_LOG) console.log(`limit ${opts.limit}: spent ${spent}, ${succeeded} of ${opts.runs} runs succeeded, ${answers.length - started.length} refused at the start`);
      return { key, agent, b, spent, done, succeeded };
    } finally {
      fake.reset();
    }
  };

  it('50 runs at once against a 20-token budget end within it', async () => {
    const r = await race({ limit: 20, latencyMs: 1, runs: 50, agent: {}, input: () => 'hi' });
    assert.ok(r.spent <= 20 * 1.5, `spent ${r.spent} of 20`);
    assert.ok(r.succeeded >= 1, 'the budget served runs while it had room');
    expectError(await execute(api, r.key.key, r.agent, { input: 'one more' }), 402, 'budget_exceeded');
  });

  it('50 runs at once against 100 tokens at a hosted pace (calls of 1.2 s) end within it', async () => {
    const r = await race({ limit: 100, latencyMs: 1_200, runs: 50, agent: {}, input: (i) => `order ${i}` });
    assert.ok(r.spent <= 100 * 1.5, `spent ${r.spent} of 100`);
    assert.ok(r.succeeded >= 2, `${r.succeeded} runs succeeded`);
  });

  it('50 runs of several tool steps against 20,000 tokens: within the limit, every call counted', async () => {
    const r = await race({
      limit: 20_000,
      latencyMs: 300,
      runs: 50,
      agent: { tools: [tool('lookup'), tool('search'), tool('fetch')], maxSteps: 10 },
      input: (i) => `lookup and search and fetch order ${i}`,
    });
    // Within the limit but for the prompts' estimate (a character in three, docs/budgets.md), which
    // this fake model, counting the JSON of the whole request, outruns by a few tokens a call: at
    // most that much for each call in flight when the limit is reached (one per run; on a loaded
    // machine more of them are, seen: 20,253).
    assert.ok(r.spent <= 20_000 + 50 * 8, `spent ${r.spent} of 20,000`);
    assert.ok(r.done.some((e) => e.error?.code === 'budget_exceeded'), 'the budget stopped some runs');
  });
});
