import { sql } from 'drizzle-orm';
import { startServer } from '../test/harness';
const api = await startServer({ db: 'pglite', env: { MODEL_PRICES: JSON.stringify({ 'openai-compatible/fake-1': { input: 2.5, output: 10 } }) } });
const { foldedCharge, checkBudgets, matching, periodStartOf } = await import('../server/modules/budgets/ledger');
const { writeAll, queryRows } = await import('../db/rows');
const k = await api.seed.key({ plan: 'enterprise', environment: 'live' } as never);
const ag = await api.request<{ id: string }>('POST', '/v1/agents', { key: k.key, body: { name: 'a', model: 'openai-compatible/fake-1' } });
const agentId = ag.body.id;
for (const body of [
  { name: 'b1', period: 'day', target: { type: 'agent', id: agentId }, limit: { tokens: 1e9 }, action: 'block' },
  { name: 'b2', period: 'month', timezone: 'America/Santiago', target: { type: 'agent', id: agentId }, limit: { usd: '1000000' }, action: 'block' },
  { name: 'b3', period: 'week', timezone: 'Asia/Kolkata', target: { type: 'agent', id: agentId }, limit: { usd: '1000000' }, action: 'notify' },
]) { const r = await api.request('POST', '/v1/budgets', { key: k.key, body }); if (r.status !== 201) throw new Error(JSON.stringify(r.body)); }
const run = { workspaceId: k.workspace.id, environment: 'live', agentId, keyId: null };
const call = { model: 'openai-compatible/fake-1', inputTokens: 20, outputTokens: 30 };
const db = api.db;
const dialect = (db as unknown as { dialect: { sqlToQuery(s: unknown): unknown } }).dialect;
const N = 3000;
async function time(label: string, f: () => Promise<unknown> | unknown) {
  for (let i = 0; i < 200; i++) await f();
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < N; i++) await f();
  const c = process.cpuUsage(c0); const t = performance.now() - t0;
  console.log(`${label.padEnd(40)} wall ${(t / N * 1000).toFixed(0)} µs  cpu ${((c.user + c.system) / N / 1000 * 1000).toFixed(0)} µs`);
}
await time('build folded (JS only)', () => { const f = foldedCharge(run, call); dialect.sqlToQuery(writeAll([f.write], [f.signal('w0')])); });
await time('select 1', () => db.execute(sql`select 1`));
await time('writeAll(upsert, signal)', () => { const f = foldedCharge(run, call); return db.execute(writeAll([f.write], [f.signal('w0')])); });
await time('writeAll(upsert) no signal', () => { const f = foldedCharge(run, call); return db.execute(writeAll([f.write], [])); });
await time('checkBudgets (3)', () => checkBudgets(db, run, call.model));
await time('checkBudgets (0)', () => checkBudgets(db, { ...run, agentId: 'agt_none' }, call.model));

await time('update-from (3)', () => db.execute(sql`update budget_spend s set cost_usd = s.cost_usd + 0.0001, tokens = s.tokens + 50 from budgets b where ${matching(run)} and s.budget_id = b.id and s.period_start = ${periodStartOf('b')}`));
await time('update-from fixed period (3)', () => db.execute(sql`update budget_spend s set cost_usd = s.cost_usd + 0.0001, tokens = s.tokens + 50 from budgets b where ${matching(run)} and s.budget_id = b.id and s.period_start = date_trunc('day', now(), 'UTC')`));
await time('select budgets matching (3)', () => db.execute(sql`select b.id, ${periodStartOf('b')} from budgets b where ${matching(run)}`));
await time('select budgets matching no period (3)', () => db.execute(sql`select b.id from budgets b where ${matching(run)}`));
await time('upsert by ids (3) literal periods', () => db.execute(sql`insert into budget_spend as s (budget_id, period_start, cost_usd, tokens, unpriced) select b.id, ${periodStartOf('b')}, 0.0001, 50, 0 from budgets b where b.id = any(string_to_array(${'x,y,z'}, ','))  on conflict (budget_id, period_start) do update set tokens = s.tokens + excluded.tokens`));
await api.close();
