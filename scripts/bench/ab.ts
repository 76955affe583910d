// A and B in one process: a change's CPU per run, measured against the code without it in the
// same process, in alternating batches (the machine's speed drifts by a third within minutes
// here, so runs of separate processes do not resolve a few per cent). Put a temporary check of
// `globalThis.__benchA` at the change (true: the code without it), then run:
//   TEST_DB=pglite|postgres node --import tsx scripts/bench/ab.ts [wait|stream] [rounds] [chunkMs] [clients]
// Each round runs 50 executions (or one per client, if more) with the flag on (A) and as many with it off (B), one after the
// other (A B, then B A), on the fake model (in this process, 40 chunks `chunkMs` apart, default
// 1); CPU = this process's, per run (the fake model's included, the same on both sides). With
// `clients` (default 1) that many run at once, each starting the next when one ends: at 30 ms
// and 50 clients every chunk is a read of its own, as at a hosted model's pace (at 1 ms several
// chunks arrive in one read). Up to ~100 clients: past that, fetch's connections pass the
// per-address cap of 256 (429). Not part of `npm run bench`. With the medians it prints how many
// rounds had A cost more and the sign test's p: how likely so many rounds lean one way (or more)
// if A and B cost the same (below ~0.05: more than chance).
import { startFakeOpenAI } from '../../test/fakes/openai';
import { startServer } from '../../test/harness';
import { cpuPreciseMs } from './cpu';
const MODE = (process.argv[2] ?? 'wait') as 'wait' | 'stream';
const ROUNDS = Number(process.argv[3] ?? 10);
const CLIENTS = Number(process.argv[5] ?? 1);
/** Runs a batch: 50, or one per client when there are more. */
const BATCH = Math.max(50, CLIENTS);
const fake = await startFakeOpenAI({ record: false, chunkDelayMs: Number(process.argv[4] ?? 1), reply: () => Array.from({ length: 40 }, (_, i) => `t${i} `).join('') });
const api = await startServer({ db: (process.env.TEST_DB ?? 'pglite') as 'pglite', env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: 'x', TEST_MODE_REAL_MODELS: 'true' } });
// A live key: in the test environment a model's answer is cached (runner.ts), and runs after the first would not call the model at all.
const k = await api.seed.key({ plan: 'enterprise', customRpm: 100_000_000, customConcurrency: 10_000, environment: 'live' });
const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: k.key, body: { name: 'a', model: 'openai-compatible/m', instructions: 'x' } });
const run = async () => {
  const res = await fetch(`${api.url}/v1/agents/${created.body.id}/execute`, { method: 'POST', headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', [MODE]: true }) });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`execute answered ${res.status}: ${body.slice(0, 300)}`);
};
// On PostgreSQL, the CPU of the database's backends too (each batch's, summed over the backends of this database).
const sqlClient = api.runtime.database.sql;
const backends = async () => (sqlClient ? (await sqlClient<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`).map((r) => r.pid) : []);
const dbCpu = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuPreciseMs(pid), 0);
const g = globalThis as { __benchA?: boolean };
/** `n` runs, `CLIENTS` at a time. */
const runs = async (n: number) => {
  let left = n;
  await Promise.all(Array.from({ length: Math.min(CLIENTS, n) }, async () => {
    while (left-- > 0) await run();
  }));
};
// Warm-up: the JIT settles over the first few hundred runs.
await runs(300);
const sums = { A: 0, B: 0 };
const dbSums = { A: 0, B: 0 };
const per: Record<'A' | 'B', number[]> = { A: [], B: [] };
const batches: string[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // A B, then B A: whatever the batch before leaves to the next (timers, a collection) falls on both sides alike.
  for (const side of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
    g.__benchA = side === 'A';
    const pids = await backends();
    const d0 = dbCpu(pids);
    const c0 = process.cpuUsage();
    await runs(BATCH);
    const c = process.cpuUsage(c0);
    dbSums[side] += dbCpu(pids) - d0;
    sums[side] += (c.user + c.system) / 1000;
    per[side].push((c.user + c.system) / 1000 / BATCH);
    batches.push(`${side} ${((c.user + c.system) / 1000 / BATCH).toFixed(1)}`);
  }
}
const n = BATCH * ROUNDS;
console.log(batches.join(', '));
/**
 * The two-sided sign test: how likely `k` or a count further from n/2 is, out of `n` rounds, if A
 * and B cost the same (each round then as likely positive as not). Below ~0.05: the rounds lean
 * one way more than chance makes them.
 */
function signTest(k: number, n: number): number {
  let below = 0;
  let c = 1; // C(n, 0)
  const lo = Math.min(k, n - k);
  for (let i = 0; i <= lo; i++) {
    below += c;
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * below) / 2 ** n);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const diffs = per.A.map((a, i) => a - per.B[i]!);
const positive = diffs.filter((d) => d > 0).length;
console.log(`A (__benchA) ${(sums.A / n).toFixed(2)} ms/run (median batch ${median(per.A).toFixed(2)}), B ${(sums.B / n).toFixed(2)} (median ${median(per.B).toFixed(2)}); A − B by round: median ${median(diffs).toFixed(2)} ms, ${positive} of ${diffs.length} rounds positive (sign test p = ${signTest(positive, diffs.length).toPrecision(2)})`);
if (sqlClient) console.log(`PostgreSQL backends: A ${(dbSums.A / n).toFixed(2)} ms/run, B ${(dbSums.B / n).toFixed(2)} ms/run`);
await api.close(); await fake.close(); process.exit(0);
