// A and B in one process: a change's CPU per run, measured against the code without it in the
// same process, in alternating batches (the machine's speed drifts by a third within minutes
// here, so runs of separate processes do not resolve a few per cent). Put a temporary check of
// `globalThis.__benchA` at the change (true: the code without it), then run:
//   TEST_DB=pglite|postgres node --import tsx scripts/bench/ab.ts [wait|stream] [rounds]
// Each round runs 50 executions with the flag on (A) and 50 with it off (B), one after the
// other (A B, then B A), on the fake model (in this process, 40 chunks 1 ms apart); CPU = this process's, per
// run (the fake model's included, the same on both sides). Not part of `npm run bench`.
import { startFakeOpenAI } from '../../test/fakes/openai';
import { startServer } from '../../test/harness';
import { cpuPreciseMs } from './cpu';
const MODE = (process.argv[2] ?? 'wait') as 'wait' | 'stream';
const fake = await startFakeOpenAI({ record: false, chunkDelayMs: 1, reply: () => Array.from({ length: 40 }, (_, i) => `t${i} `).join('') });
const api = await startServer({ db: (process.env.TEST_DB ?? 'pglite') as 'pglite', env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: 'x', TEST_MODE_REAL_MODELS: 'true' } });
const k = await api.seed.key({ plan: 'enterprise', customRpm: 100_000_000, customConcurrency: 10_000 });
const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: k.key, body: { name: 'a', model: 'openai-compatible/m', instructions: 'x' } });
const run = async () => {
  const res = await fetch(`${api.url}/v1/agents/${created.body.id}/execute`, { method: 'POST', headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', [MODE]: true }) });
  await res.text();
  if (res.status !== 200) throw new Error(`execute answered ${res.status}`);
};
// On PostgreSQL, the CPU of the database's backends too (each batch's, summed over the backends of this database).
const sqlClient = api.runtime.database.sql;
const backends = async () => (sqlClient ? (await sqlClient<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`).map((r) => r.pid) : []);
const dbCpu = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuPreciseMs(pid), 0);
const g = globalThis as { __benchA?: boolean };
// Warm-up: the JIT settles over the first few hundred runs.
for (let i = 0; i < 300; i++) await run();
const sums = { A: 0, B: 0 };
const dbSums = { A: 0, B: 0 };
const per: Record<'A' | 'B', number[]> = { A: [], B: [] };
const batches: string[] = [];
for (let round = 0; round < Number(process.argv[3] ?? 10); round++) {
  // A B, then B A: whatever the batch before leaves to the next (timers, a collection) falls on both sides alike.
  for (const side of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
    g.__benchA = side === 'A';
    const pids = await backends();
    const d0 = dbCpu(pids);
    const c0 = process.cpuUsage();
    for (let i = 0; i < 50; i++) await run();
    const c = process.cpuUsage(c0);
    dbSums[side] += dbCpu(pids) - d0;
    sums[side] += (c.user + c.system) / 1000;
    per[side].push((c.user + c.system) / 1000 / 50);
    batches.push(`${side} ${((c.user + c.system) / 1000 / 50).toFixed(1)}`);
  }
}
const n = 50 * Number(process.argv[3] ?? 10);
console.log(batches.join(', '));
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const diffs = per.A.map((a, i) => a - per.B[i]!);
console.log(`A (__benchA) ${(sums.A / n).toFixed(2)} ms/run (median batch ${median(per.A).toFixed(2)}), B ${(sums.B / n).toFixed(2)} (median ${median(per.B).toFixed(2)}); A − B by round: median ${median(diffs).toFixed(2)} ms, ${diffs.filter((d) => d > 0).length} of ${diffs.length} rounds positive`);
if (sqlClient) console.log(`PostgreSQL backends: A ${(dbSums.A / n).toFixed(2)} ms/run, B ${(dbSums.B / n).toFixed(2)} ms/run`);
await api.close(); await fake.close(); process.exit(0);
