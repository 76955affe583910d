// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { BudgetView } from '../../server/modules/budgets/service';
import { expectStatus } from '../expect';
import { DB_KIND, startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { transaction } from '../../db/transaction';
import { eventually } from '../eventually';

// The alerts the minute's sweeps send (docs/budgets.md, "Alerts"): `budget.reset` when a period
// starts after an exceeded one, alerts a charge crossed but did not send, and `key.usage_spike`
// (10× the key's average hour of the previous 7 days and at least 1,000), each once.

let api: TestServer;
let sweepBudgetAlerts: typeof import('../../server/modules/budgets/alerts').sweepBudgetAlerts;
let sweepUsageSpikes: typeof import('../../server/modules/keys/usage-spike').sweepUsageSpikes;
let runMaintenance: typeof import('../../server/processes/maintenance').runMaintenance;

before(async () => {
  api = await startServer();
  ({ sweepBudgetAlerts } = await import('../../server/modules/budgets/alerts'));
  ({ sweepUsageSpikes } = await import('../../server/modules/keys/usage-spike'));
  ({ runMaintenance } = await import('../../server/processes/maintenance'));
});
after(() => api?.close());

type Event = { type: string; data: { object: Record<string, unknown> } };
async function events(key: SeededKey, type: string): Promise<Event[]> {
  const res = await api.request<{ data: Event[] }>('GET', `/v1/events?type=${type}&limit=100`, { key: key.key });
  expectStatus(res, 200);
  return res.body.data;
}

async function budget(key: SeededKey, body: Record<string, unknown> = {}): Promise<BudgetView> {
  const res = await api.request<BudgetView>('POST', '/v1/budgets', {
    key: key.key,
    body: { name: 'Daily', action: 'block', period: 'day', target: { type: 'workspace' }, limit: { tokens: 100 }, timezone: 'America/Santiago', ...body },
  });
  expectStatus(res, 201);
  return res.body;
}

describe('budget sweeps', () => {
  it('send budget.reset once when a period starts after an exceeded one', async () => {
    const key = await api.seed.key({ ...UNLIMITED });
    const b = await budget(key);
    const yesterday = new Date(new Date(b.periodStart).getTime() - 86_400_000).toISOString();
    await api.query(sql`insert into budget_spend (budget_id, period_start, tokens, exceeded_at) values (${b.id}, ${yesterday}::timestamptz, 150, now() - interval '1 hour')`);
    await sweepBudgetAlerts(api.db);
    await sweepBudgetAlerts(api.db);
    const resets = await events(key, 'budget.reset');
    assert.equal(resets.length, 1);
    assert.equal(resets[0]!.data.object.id, b.id);
    assert.equal(resets[0]!.data.object.status, 'ok', 'the new period is within its limit');
    assert.equal(resets[0]!.data.object.periodStart, b.periodStart);
  });

  it('maintenance deletes ledger rows of periods ended over 400 days ago, never a total budget’s nor one whose reset is due', async () => {
    const key = await api.seed.key({ ...UNLIMITED });
    const daily = await budget(key);
    const total = await budget(key, { period: 'total' });
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    await api.query(sql`insert into budget_spend (budget_id, period_start, tokens) values (${daily.id}, ${ago(500)}::timestamptz, 10), (${daily.id}, ${ago(300)}::timestamptz, 10)`);
    // Exceeded and its reset not sent yet (the sweep's to send): kept until it is.
    await api.query(sql`insert into budget_spend (budget_id, period_start, tokens, exceeded_at) values (${daily.id}, ${ago(501)}::timestamptz, 150, ${ago(501)}::timestamptz)`);
    await api.query(sql`update budget_spend set tokens = 7 where budget_id = ${total.id}`);
    await api.query(sql`insert into key_usage_alerts (key_id, day) values (${key.id}, (now() - interval '30 days')::date), (${key.id}, current_date)`);
    const { ledgerRowsDeleted } = await runMaintenance(api.db);
    assert.ok(ledgerRowsDeleted >= 2);
    const left = await api.query<{ period_start: string }>(sql`select period_start::text from budget_spend where budget_id = ${daily.id} order by period_start`);
    assert.equal(left.length, 3, 'the 300-day-old period, the one awaiting its reset, and today');
    assert.equal((await api.query(sql`select 1 from budget_spend where budget_id = ${total.id}`)).length, 1, 'a total budget keeps its one row');
    assert.equal((await api.query(sql`select 1 from key_usage_alerts where key_id = ${key.id}`)).length, 1, "today's spike claim stays");
    const view = (await api.request<BudgetView>('GET', `/v1/budgets/${total.id}`, { key: key.key })).body;
    assert.equal(view.spent.tokens, 7);
  });

  it('an exceeded period still under way is not reset', async () => {
    const key = await api.seed.key({ ...UNLIMITED });
    const b = await budget(key);
    await api.query(sql`update budget_spend set tokens = 150, exceeded_at = now(), alerted = '{80,100}' where budget_id = ${b.id}`);
    await sweepBudgetAlerts(api.db);
    assert.equal((await events(key, 'budget.reset')).length, 0);
  });

  it('send the alerts a charge crossed and could not send, once', async () => {
    const key = await api.seed.key({ ...UNLIMITED });
    const b = await budget(key, { alertAt: [50, 90] });
    await api.query(sql`update budget_spend set tokens = 95 where budget_id = ${b.id}`);
    await sweepBudgetAlerts(api.db);
    await sweepBudgetAlerts(api.db);
    const reached = await events(key, 'budget.threshold_reached');
    assert.deepEqual(reached.map((e) => e.data.object.percent).sort(), [50, 90]);
    assert.equal((await events(key, 'budget.exceeded')).length, 0, 'not reached yet');
    await api.query(sql`update budget_spend set tokens = 100 where budget_id = ${b.id}`);
    await sweepBudgetAlerts(api.db);
    await sweepBudgetAlerts(api.db);
    const exceeded = await events(key, 'budget.exceeded');
    assert.equal(exceeded.length, 1);
    assert.equal(exceeded[0]!.data.object.status, 'exceeded');
  });
});

// Found in a CI run of budgets-scale.int.test.ts: a reservation (reserve.ts) held its budget's row
// `for update` and waited for the ledger row, which an alert's transaction (alerts.ts
// `sendAlerts`) had updated once; that transaction's second update of the row checks its foreign
// key (the row is its own new version), a key-share lock on the budget, and waited for the
// reservation: PostgreSQL's deadlock detector failed the run ("The model call failed unexpectedly").
describe('a reservation beside an alert transaction', { skip: DB_KIND !== 'postgres' && 'two connections: PostgreSQL only' }, () => {
  it('does not deadlock: the reservation waits for the alert and is refused after it', async () => {
    const { reserveCall } = await import('../../server/modules/budgets/reserve');
    const key = await api.seed.key({ ...UNLIMITED });
    const b = await budget(key, { period: 'total', alertAt: [50] });
    await api.query(sql`update budget_spend set tokens = 99 where budget_id = ${b.id}`);
    const scope = { workspaceId: key.workspace.id, environment: key.environment, agentId: 'agt_none', keyId: key.id };
    let reserving: Promise<unknown> | undefined;
    await transaction(api.db, async (tx) => {
      // What sendAlerts does: one update of the ledger row (the threshold), then another (exceeded).
      await tx.execute(sql`update budget_spend set alerted = alerted || 50 where budget_id = ${b.id}`);
      reserving = reserveCall(api.db, scope, { executionId: 'exe_none', model: 'sandbox/echo', inputTokens: 10, expiresAt: new Date(Date.now() + 60_000) });
      reserving.catch(() => {});
      // The reservation holds the budget's row and waits for the ledger row.
      await eventually('the reservation waits', async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into budget_spend%'`))[0]!.n, (n) => n === 1, { timeoutMs: 10_000, everyMs: 20 });
      await tx.execute(sql`update budget_spend set exceeded_at = now() where budget_id = ${b.id} and exceeded_at is null`);
    });
    assert.equal(((await reserving) as { kind: string }).kind, 'refused', 'what is left cannot hold the call');
    assert.ok((await api.query<{ exceeded: boolean }>(sql`select exceeded_at is not null as exceeded from budget_spend where budget_id = ${b.id}`))[0]!.exceeded);
  });
});

describe('key.usage_spike', () => {
  const HOUR = 3_600_000;
  const now = new Date();
  const thisHour = new Date(Math.floor(now.getTime() / HOUR) * HOUR);

  async function requests(key: SeededKey, hoursAgo: number, n: number) {
    const bucket = new Date(thisHour.getTime() - hoursAgo * HOUR).toISOString();
    await api.query(sql`insert into usage_request_rollups (workspace_id, environment, granularity, bucket, key_id, succeeded, client_errors, unauthorized, forbidden, rate_limited, server_errors, duration_hist)
      values (${key.workspace.id}, ${key.environment}, 'hour', ${bucket}::timestamptz, ${key.id}, ${n}, 0, 0, 0, 0, 0, '')`);
  }

  it('fires past 10× the key’s average hour and 1,000 requests, once a day', async () => {
    const key = await api.seed.key({ ...UNLIMITED });
    for (let h = 1; h <= 168; h++) await requests(key, h, 12); // an average of 12 an hour
    await requests(key, 0, 1_100);
    const sent = await sweepUsageSpikes(api.db, now);
    assert.ok(sent.includes(key.id));
    assert.deepEqual(await sweepUsageSpikes(api.db, now), [], 'once per key per day');
    const spikes = await events(key, 'key.usage_spike');
    assert.equal(spikes.length, 1);
    const object = spikes[0]!.data.object as { id: string; prefix: string; usage: { hour: string; requests: number; averageHourlyRequests: number } };
    assert.equal(object.id, key.id);
    assert.deepEqual(object.usage, { hour: thisHour.toISOString(), requests: 1_100, averageHourlyRequests: 12 });
    assert.ok(!('hash' in object) && !JSON.stringify(object).includes(key.key), 'never the secret');
  });

  it('does not fire under 1,000 requests, nor under 10× a busy key’s average', async () => {
    const quiet = await api.seed.key({ ...UNLIMITED });
    await requests(quiet, 0, 999); // a new key, no history: 999 is under the floor
    const busy = await api.seed.key({ ...UNLIMITED });
    for (let h = 1; h <= 168; h++) await requests(busy, h, 200);
    await requests(busy, 0, 1_999); // under 10 × 200
    const sent = await sweepUsageSpikes(api.db, now);
    assert.ok(!sent.includes(quiet.id) && !sent.includes(busy.id));
  });
});
