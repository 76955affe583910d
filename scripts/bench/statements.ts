// A count of the embedded database's work per execution: runs `wait` executions one after the
// other on PGlite against the fake model (in this process), and counts the statements PGlite
// ran (extended protocol Bind `B`, simple query `Q`), the protocol messages by kind, and the time
// spent inside PGlite. Not part of `npm run bench`.
// STATEMENTS_PROF=<file>: also a CPU profile of the counted runs (scripts/bench/profile-summary.ts reads it).
// Usage: TEST_DB=pglite node --import tsx scripts/bench/statements.ts [runs] [mode] [chunkMs] [clients]
// chunkMs (default 0): the fake model's pause between its 40 chunks (TEST_MODE_REAL_MODELS: the
// fake, not the tests' sandbox model); at 1 or more a run records one text delta per chunk, as at
// a hosted pace. clients (default 1): runs at once, each client starting its next when one ends
// (as the peers part's clients do; statements that count the runs in flight then see them).
import { startFakeOpenAI } from '../../test/fakes/openai';
import { startServer } from '../../test/harness';
import { Session } from 'node:inspector/promises';
import fs from 'node:fs';

const RUNS = Number(process.argv[2] ?? 50);
const MODE = (process.argv[3] ?? 'wait') as 'wait' | 'stream' | 'async';
const CHUNK_MS = Number(process.argv[4] ?? 0);
const CLIENTS = Number(process.argv[5] ?? 1);
const fake = await startFakeOpenAI({ record: false, chunkDelayMs: CHUNK_MS, reply: () => Array.from({ length: 40 }, (_, i) => `t${i} `).join('') });
const api = await startServer({ db: 'pglite', env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: 'x', TEST_MODE_REAL_MODELS: 'true' } });
const pglite = api.runtime.database.pglite! as unknown as { execProtocolStream: (m: Uint8Array, o?: unknown) => Promise<unknown> };
// A live key: in the test environment a model's answer is cached (runner.ts), and runs after the first would not call the model at all.
const k = await api.seed.key({ plan: 'enterprise', customRpm: 100_000_000, customConcurrency: 10_000, environment: 'live' });
const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: k.key, body: { name: 'a', model: 'openai-compatible/m', instructions: 'x' } });
const agentId = created.body.id;
const counts = new Map<string, number>();
const times = new Map<string, number>();
const byKind = new Map<string, [number, number]>();
const names = new Map<string, string>();
let statements = 0;
let inside = 0;
let counting = false;
const original = pglite.execProtocolStream.bind(pglite);
pglite.execProtocolStream = async (m, o) => {
  const t = performance.now();
  try {
    return await original(m, o);
  } finally {
    const cstr = (at: number) => Buffer.from(m.subarray(at, m.indexOf(0, at))).toString();
    if (m[0] === 0x50) names.set(cstr(5), cstr(m.indexOf(0, 5) + 1)); // Parse: name, text
    if (counting) {
      inside += performance.now() - t;
      const kind = String.fromCharCode(m[0]!);
      byKind.set(kind, [(byKind.get(kind)?.[0] ?? 0) + 1, (byKind.get(kind)?.[1] ?? 0) + performance.now() - t]);
      if (m[0] === 0x42 || m[0] === 0x51) {
        // Bind (portal, statement: a statement's name, or the unnamed one parsed just before) or a simple Query.
        statements++;
        const text = (m[0] === 0x51 ? cstr(5) : (names.get(cstr(m.indexOf(0, 5) + 1)) ?? `? ${cstr(m.indexOf(0, 5) + 1)}`)).replace(/\s+/g, ' ').slice(0, Number(process.env.STATEMENT_CHARS ?? 110));
        counts.set(text, (counts.get(text) ?? 0) + 1);
        times.set(text, (times.get(text) ?? 0) + performance.now() - t);
      }
    }
  }
};
const statuses = new Map<number, number>();
const run = async () => {
  const body = MODE === 'async' ? { input: 'hi' } : { input: 'hi', [MODE]: true };
  const res = await fetch(`${api.url}/v1/agents/${agentId}/execute`, { method: 'POST', headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.text();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
};
for (let i = 0; i < 5; i++) await run();
await new Promise((r) => setTimeout(r, 3000));
// STATEMENTS_PROF=<file>: a CPU profile of the counted runs alone (not of the start-up).
const profiler = process.env.STATEMENTS_PROF ? new Session() : null;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
counting = true;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let left = RUNS;
await Promise.all(Array.from({ length: CLIENTS }, async () => {
  while (left-- > 0) await run();
}));
await new Promise((r) => setTimeout(r, 2500)); // lazy writes, relay, usage flush
counting = false;
if (profiler) fs.writeFileSync(process.env.STATEMENTS_PROF!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
const cpu = process.cpuUsage(cpu0);
console.log(`${RUNS} ${MODE} runs in ${(performance.now() - t0).toFixed(0)} ms; process CPU ${((cpu.user + cpu.system) / 1000 / RUNS).toFixed(1)} ms/run (fake model in this process too)`);
console.log(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))} (5 warm-up runs included)`);
console.log(`statements/run ${(statements / RUNS).toFixed(1)}; inside PGlite ${(inside / RUNS).toFixed(2)} ms/run (${(inside / statements).toFixed(3)} ms/statement)`);
for (const [kind, [n, ms]] of byKind) console.log(`message ${kind}: ${(n / RUNS).toFixed(1)}/run, ${(ms / n).toFixed(3)} ms each`);
for (const [text, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${(n / RUNS).toFixed(2).padStart(6)} ${(times.get(text)! / n).toFixed(2).padStart(6)} ms  ${text}`);
// Statements prepared before counting began (named '? <name>' above): their text.
const unknown = [...counts.keys()].filter((t) => t.startsWith('? ')).map((t) => t.slice(2));
if (unknown.length) {
  const q = api.runtime.database.pglite! as unknown as { query: (s: string, p: unknown[]) => Promise<{ rows: { name: string; statement: string }[] }> };
  const { rows } = await q.query('select name, statement from pg_prepared_statements where name = any($1)', [unknown]);
  for (const r of rows) console.log(`? ${r.name} = ${r.statement.replace(/\s+/g, ' ').slice(0, 200)}`);
}
await api.close();
await fake.close();
