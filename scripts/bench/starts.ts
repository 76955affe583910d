// The CPU of a start: 200 `stream: true` executions at once (on two keys) against a model that answers only
// after 4 s, so that the window from the burst to the last `execution.started` holds the starts
// alone (their requests, keys, limits, transactions and model calls). The client runs in this
// process too (undici's frames in the profile). Not part of `npm run bench`.
// Usage: TEST_DB=pglite|postgres node --import tsx scripts/bench/starts.ts [bursts] [profile file]
// STARTS_WRITES=1 (PostgreSQL): the writes to the database per start, and the statements each carried.
import fs from 'node:fs';
import { watchWrites } from './pg-writes';
import { Session } from 'node:inspector/promises';
import { startFakeOpenAI } from '../../test/fakes/openai';
import { startServer } from '../../test/harness';

const BURSTS = Number(process.argv[2] ?? 3);
// STARTS_SQL_TIMES=1: the time drizzle spends building each statement's text (PgDialect.sqlToQuery), by statement.
const builds = new Map<string, [number, number]>();
let counting = false;
if (process.env.STARTS_SQL_TIMES) {
  const { PgDialect } = await import('drizzle-orm/pg-core');
  const original = PgDialect.prototype.sqlToQuery;
  PgDialect.prototype.sqlToQuery = function (this: InstanceType<typeof PgDialect>, ...args: Parameters<typeof original>) {
    const t = performance.now();
    const q = original.apply(this, args);
    if (counting) {
      const key = q.sql.replace(/\s+/g, ' ').slice(0, 90);
      const [n, ms] = builds.get(key) ?? [0, 0];
      builds.set(key, [n + 1, ms + performance.now() - t]);
    }
    return q;
  };
}
const PROFILE = process.argv[3];
const writes = process.env.STARTS_WRITES ? watchWrites(5432) : null;
const N = Number(process.env.N ?? 200);
const fake = await startFakeOpenAI({ record: false, latencyMs: 4000, chunkDelayMs: 1, reply: () => 'hello there' });
const api = await startServer({ db: (process.env.TEST_DB ?? 'pglite') as 'pglite', env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: 'x', TEST_MODE_REAL_MODELS: 'true' } });
const k = await api.seed.key({ plan: 'enterprise', customRpm: 100_000_000, customConcurrency: 10_000 });
// Two keys of the workspace, as the peers part uses (a key holds at most 100 streams).
const k2 = await api.seed.key({ workspace: k.workspace });
let turn = 0;
const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: k.key, body: { name: 'a', model: 'openai-compatible/m', instructions: 'x' } });
/** One stream: resolves when its `execution.started` arrives; `done` when the stream ends. */
const stream = async (onStarted: () => void) => {
  const res = await fetch(`${api.url}/v1/agents/${created.body.id}/execute`, { method: 'POST', headers: { authorization: `Bearer ${turn++ % 2 ? k2.key : k.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', stream: true }) });
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let text = '';
  let started = false;
  for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    if (!started && text.includes('execution.started')) {
      started = true;
      onStarted();
    }
  }
};
const burst = async (profile: boolean) => {
  const session = profile ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  counting = true;
  writes?.start();
  let started = 0;
  const times: number[] = [];
  let all!: () => void;
  const allStarted = new Promise<void>((r) => (all = r));
  const done = Array.from({ length: N }, () =>
    stream(() => {
      times.push(performance.now() - t0);
      if (++started === N) all();
    }),
  );
  await allStarted;
  counting = false;
  const cpu = process.cpuUsage(cpu0);
  writes?.report(N);
  const prof = session ? (await session.post('Profiler.stop')).profile : null;
  await Promise.all(done);
  // The server closes idle keep-alive connections after 5 s: the next burst's fresh ones would
  // pass the per-address cap of 256 with them.
  await new Promise((r) => setTimeout(r, 5500));
  times.sort((a, b) => a - b);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / N, p50: times[N / 2]!, last: times[N - 1]!, prof };
};
await burst(false); // warm-up
for (let i = 0; i < BURSTS; i++) {
  const r = await burst(PROFILE !== undefined && i === BURSTS - 1);
  console.log(`burst ${i + 1}: started p50 ${r.p50.toFixed(0)} ms, last ${r.last.toFixed(0)} ms; CPU ${r.cpuMs.toFixed(2)} ms a start (server and client)`);
  if (r.prof) fs.writeFileSync(PROFILE!, JSON.stringify(r.prof));
}
for (const [text, [n, ms]] of [...builds].sort((a, b) => b[1][1] - a[1][1]).slice(0, 15)) console.log(`${(n / N / BURSTS).toFixed(2).padStart(5)}/start ${((ms / n) * 1000).toFixed(0).padStart(5)} µs  ${text}`);
await api.close();
await fake.close();
process.exit(0);
