// A and B in one process: a change's CPU per run, measured against the code without it in the
// same process, in alternating batches (the machine's speed drifts by a third within minutes
// here, so runs of separate processes do not resolve a few per cent). Put a temporary check of
// `globalThis.__benchA` at the change (true: the code without it), then run:
//   TEST_DB=pglite|postgres node --import tsx scripts/bench/ab.ts [wait|stream] [rounds]
// Each round runs 50 executions with the flag on (A) and 50 with it off (B), one after the
// other, on the fake model (in this process, 40 chunks 1 ms apart); CPU = this process's, per
// run (the fake model's included, the same on both sides). Not part of `npm run bench`.
import { startFakeOpenAI } from '../../test/fakes/openai';
import { startServer } from '../../test/harness';
const MODE = (process.argv[2] ?? 'wait') as 'wait' | 'stream';
const fake = await startFakeOpenAI({ record: false, chunkDelayMs: 1, reply: () => Array.from({ length: 40 }, (_, i) => `t${i} `).join('') });
const api = await startServer({ db: (process.env.TEST_DB ?? 'pglite') as 'pglite', env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: 'x', TEST_MODE_REAL_MODELS: 'true' } });
const k = await api.seed.key({ plan: 'enterprise' } as never);
const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: k.key, body: { name: 'a', model: 'openai-compatible/m', instructions: 'x' } });
const run = async () => {
  const res = await fetch(`${api.url}/v1/agents/${created.body.id}/execute`, { method: 'POST', headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', [MODE]: true }) });
  await res.text();
};
const g = globalThis as { __benchA?: boolean };
for (let i = 0; i < 50; i++) await run();
const sums = { A: 0, B: 0 };
for (let round = 0; round < Number(process.argv[3] ?? 10); round++) {
  for (const side of ['A', 'B'] as const) {
    g.__benchA = side === 'A';
    const c0 = process.cpuUsage();
    for (let i = 0; i < 50; i++) await run();
    const c = process.cpuUsage(c0);
    sums[side] += (c.user + c.system) / 1000;
  }
}
const n = 50 * Number(process.argv[3] ?? 10);
console.log(`A (__benchA) ${(sums.A / n).toFixed(2)} ms/run, B ${(sums.B / n).toFixed(2)} ms/run`);
await api.close(); await fake.close(); process.exit(0);
