// Where a run's allocations come from: runs `wait` executions on the fake model (in this process,
// 40 chunks `chunkMs` apart, `clients` at once) under V8's sampling heap profiler with the objects
// that garbage collection took counted too, then prints the allocated bytes a run by function and
// by package (self: the function that allocated). Not part of `npm run bench`.
// Usage: TEST_DB=pglite|postgres node --import tsx scripts/bench/heap-sample.ts [runs] [chunkMs] [clients]
import { Session } from 'node:inspector/promises';
import { startFakeOpenAI } from '../../test/fakes/openai';
import { startServer } from '../../test/harness';

const RUNS = Number(process.argv[2] ?? 400);
const CHUNK_MS = Number(process.argv[3] ?? 30);
const CLIENTS = Number(process.argv[4] ?? 50);
const fake = await startFakeOpenAI({ record: false, chunkDelayMs: CHUNK_MS, reply: () => Array.from({ length: 40 }, (_, i) => `t${i} `).join('') });
const api = await startServer({ db: (process.env.TEST_DB ?? 'pglite') as 'pglite', env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: 'x', TEST_MODE_REAL_MODELS: 'true' } });
// A live key: in the test environment a model's answer is cached (runner.ts), and runs after the first would not call the model at all.
const k = await api.seed.key({ plan: 'enterprise', customRpm: 100_000_000, customConcurrency: 10_000, environment: 'live' });
const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: k.key, body: { name: 'a', model: 'openai-compatible/m', instructions: 'x' } });
const run = async () => {
  const res = await fetch(`${api.url}/v1/agents/${created.body.id}/execute`, { method: 'POST', headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', wait: true }) });
  await res.text();
};
const runs = async (n: number) => {
  let left = n;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (left-- > 0) await run();
  }));
};
await runs(300); // warm-up
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
await runs(RUNS);
const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
interface Node { id: number; selfSize: number; callFrame: { functionName: string; url: string; lineNumber: number }; children: Node[] }
const byFn = new Map<string, number>();
const byPkg = new Map<string, number>();
const pkgOf = (url: string) => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  if (url === '') return '(native)';
  const ours = /\/work\/[^/]+\/([^/]+)/.exec(url);
  return ours ? ours[1]! : url.slice(0, 40);
};
/** A frame as the tables name it: function, package, file and line. */
const frameKey = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${pkgOf(n.callFrame.url)} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
let total = 0;
const walk = (n: Node) => {
  if (n.selfSize > 0) {
    const key = frameKey(n);
    byFn.set(key, (byFn.get(key) ?? 0) + n.selfSize);
    const p = pkgOf(n.callFrame.url);
    byPkg.set(p, (byPkg.get(p) ?? 0) + n.selfSize);
    total += n.selfSize;
  }
  for (const c of n.children) walk(c);
};
walk(profile.head);
// HEAP_CALLERS=<text>: for the allocating functions whose line contains it, their callers (HEAP_DEPTH frames up).
const callersOf = process.env.HEAP_CALLERS;
const callers = new Map<string, number>();
const chain = (n: Node, path: Node[]) => {
  const here = [...path, n];
  if (callersOf && n.selfSize > 0 && frameKey(n).includes(callersOf)) {
    const up = here.slice(-1 - Number(process.env.HEAP_DEPTH ?? 4), -1).map((x) => `${x.callFrame.functionName || '(anon)'}@${x.callFrame.url.split('/').pop()}:${x.callFrame.lineNumber + 1}`).join(' < ');
    callers.set(up, (callers.get(up) ?? 0) + n.selfSize);
  }
  for (const c of n.children) chain(c, here);
};
if (callersOf) chain(profile.head, []);
const kb = (b: number) => `${(b / 1024 / RUNS).toFixed(1).padStart(7)} KB/run`;
console.log(`allocated (sampled, collected objects included): ${kb(total)}`);
for (const [p, b] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${kb(b)}  ${p}`);
console.log('');
for (const [f, b] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(`${kb(b)}  ${f}`);
if (callersOf) {
  console.log(`\ncallers of ${callersOf}:`);
  for (const [c, b] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${kb(b)}  ${c}`);
}
await api.close();
await fake.close();
