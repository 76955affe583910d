import { PgDialect } from 'drizzle-orm/pg-core';
process.env.MODEL_PRICES = JSON.stringify({ 'openai-compatible/fake-1': { input: 2.5, output: 10 } });
const { foldedCharge, matching } = await import('../server/modules/budgets/ledger');
const { callCost } = await import('../server/platform/prices');
const { writeAll } = await import('../db/rows');
const d = new PgDialect();
const run = { workspaceId: 'wsp_x', environment: 'live', agentId: 'agt_y', keyId: null };
const call = { model: 'openai-compatible/fake-1', inputTokens: 20, outputTokens: 30 };
function time(label: string, f: () => unknown) {
  for (let i = 0; i < 2000; i++) f();
  const N = 20000; const t0 = performance.now();
  for (let i = 0; i < N; i++) f();
  console.log(label.padEnd(30), ((performance.now() - t0) / N * 1000).toFixed(1), 'µs');
}
time('callCost', () => callCost('live', call.model, 20, 30));
time('matching build', () => matching(run));
time('matching render', () => d.sqlToQuery(matching(run)));
time('folded build', () => foldedCharge(run, call));
time('folded render', () => { const f = foldedCharge(run, call); d.sqlToQuery(writeAll([f.write], [f.signal('w0')])); });
