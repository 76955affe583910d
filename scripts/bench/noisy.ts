// The noisy-neighbour part of `npm run bench` (docs/benchmark.md): one app process (workers in
// it) on each database of BENCH_NOISY_DBS (postgres with Redis, and pglite: the embedded
// default, a fresh data dir), and the hosted-pace fake model (scripts/bench/fake-model.ts).
// Workspace A floods it: BENCH_NOISY_QUEUED (10,000) executions queued through the API, then
// BENCH_NOISY_STREAMS (1,000) event streams held open over ten keys, while its runs go on at its
// concurrency (BENCH_NOISY_A_CONCURRENCY, 25). Meanwhile workspace B (the bench's own) measures
// what it gets: `GET /v1/agents` latency from BENCH_NOISY_CLIENTS (4) clients for
// BENCH_NOISY_SECONDS (10), and a few `wait: true` executions: time until each started.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sample, storePids, used } from './cpu';
import type { ExecutionsSetup } from './executions';
import { call, cli, clientAgent, startFakeModel, watchRss, type Client } from './hosted';
import { freePorts, percentile, sleep, spawnService, stopAll, waitFor } from './util';

const QUEUED = Number(process.env.BENCH_NOISY_QUEUED ?? 10_000);
const STREAMS = Number(process.env.BENCH_NOISY_STREAMS ?? 1_000);
const A_CONCURRENCY = Number(process.env.BENCH_NOISY_A_CONCURRENCY ?? 25);
const CLIENTS = Number(process.env.BENCH_NOISY_CLIENTS ?? 4);
const SECONDS = Number(process.env.BENCH_NOISY_SECONDS ?? 10);
const WAITS = Number(process.env.BENCH_NOISY_WAITS ?? 5);
const DBS = (process.env.BENCH_NOISY_DBS ?? 'postgres,pglite').split(',').filter((d) => d === 'postgres' || d === 'pglite');

const ms = (x: number) => (Number.isNaN(x) ? '–' : x < 10 ? x.toFixed(1) : Math.round(x).toString());

/** Opens an event stream and reads it until `stop` (or the server ends it); resolves once its headers arrived. */
async function holdStream(c: Client, path: string, stop: AbortSignal): Promise<number> {
  const { request } = await import('undici');
  const res = await request(c.origin + path, { dispatcher: c.agent, headers: { authorization: `Bearer ${c.key}` }, signal: stop });
  void (async () => {
    try {
      for await (const _ of res.body) {
        // read and drop
      }
    } catch {
      // stopped
    }
  })();
  return res.statusCode;
}

export async function benchNoisy(setup: ExecutionsSetup): Promise<void> {
  for (const db of DBS) await noisyOn(db, setup);
}

async function noisyOn(db: 'postgres' | 'pglite', setup: ExecutionsSetup): Promise<void> {
  const model = await startFakeModel();
  const [port] = await freePorts(1);
  const origin = `http://127.0.0.1:${port}`;
  let env: NodeJS.ProcessEnv = { ...setup.env, REDIS_URL: setup.redisUrl, OPENAI_COMPATIBLE_BASE_URL: model.url, RUN_WORKERS: 'true', PORT: String(port) };
  let keyB = setup.key;
  let dataDir: string | undefined;
  if (db === 'pglite') {
    // Embedded: a fresh data dir, and B's workspace made there (the admin CLI runs before the server: one process owns the data dir).
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-bench-noisy-'));
    env = { ...env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' };
    await cli(env, ['create-user', '--email', 'bench@example.com', '--password', 'bench-password']);
    await cli(env, ['set-plan', '--email', 'bench@example.com', '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', '10000']);
    keyB = await cli(env, ['create-key', '--email', 'bench@example.com', '--env', 'live', '--scopes', 'all', '--name', 'bench']);
  }
  // A: its own workspace, an enterprise plan (a request rate the flood never reaches) running A_CONCURRENCY at once.
  const email = `noisy-${Date.now()}@example.com`;
  const adminEnv = db === 'pglite' ? env : setup.env;
  await cli(adminEnv, ['create-user', '--email', email, '--password', 'bench-password']);
  await cli(adminEnv, ['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', String(A_CONCURRENCY)]);
  const adminA = await cli(adminEnv, ['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'noisy admin']);
  const app = spawnService('main', env);
  const stop = new AbortController();
  try {
    await waitFor(`${origin}/readyz`, app);
    const agent = clientAgent();
    const a: Client = { agent, origin, key: adminA };
    const keysA = [adminA];
    while (keysA.length < Math.max(1, Math.ceil(STREAMS / 100))) {
      keysA.push((await call<{ key: string }>(a, 'POST', '/v1/keys', { name: `noisy ${keysA.length}` }, 201)).body.key);
    }
    const { body: agentA } = await call<{ id: string }>(a, 'POST', '/v1/agents', { name: 'A', model: 'openai-compatible/hosted' }, 201);
    const b: Client = { agent, origin, key: keyB };
    const { body: agentB } = await call<{ id: string }>(b, 'POST', '/v1/agents', { name: 'B', model: 'openai-compatible/hosted' }, 201);

    // The flood: QUEUED executions of A through the API (50 clients).
    const t0 = performance.now();
    const ids: string[] = [];
    let sent = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const c: Client = { agent, origin, key: keysA[i % keysA.length]! };
        while (sent < QUEUED) {
          sent++;
          ids.push((await call<{ id: string }>(c, 'POST', `/v1/agents/${agentA.id}/execute`, { input: `flood ${sent}` }, 202)).body.id);
        }
      }),
    );
    const queuedIn = (performance.now() - t0) / 1000;
    // STREAMS streams of A held open, 100 per key, on its most recently queued executions.
    const opened = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) =>
        holdStream({ agent, origin, key: keysA[Math.floor(i / 100) % keysA.length]! }, `/v1/executions/${ids[ids.length - 1 - (i % ids.length)]}/stream`, stop.signal).catch(() => 0),
      ),
    );
    const streamsOpen = opened.filter((s) => s === 200).length;
    await sleep(1000);

    // B, meanwhile.
    const cpuNow = async () => sample([app.pid!], db === 'postgres' ? await storePids(setup.admin, setup.dbName, setup.redis) : []);
    await model.reset();
    const before = await cpuNow();
    const rss = watchRss([app.pid!]);
    const latencies: number[] = [];
    let refused = 0;
    const until = performance.now() + SECONDS * 1000;
    const waits: { started: number; total: number; status: string }[] = [];
    await Promise.all([
      ...Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          const s = performance.now();
          const res = await call(b, 'GET', '/v1/agents?limit=20');
          latencies.push(performance.now() - s);
          if (res.status !== 200) refused++;
        }
      }),
      (async () => {
        for (let i = 0; i < WAITS; i++) {
          const s = performance.now();
          const res = await call<{ status: string; createdAt: string; startedAt: string | null }>(b, 'POST', `/v1/agents/${agentB.id}/execute`, { input: `B ${i}`, wait: true });
          const started = res.body.startedAt ? Date.parse(res.body.startedAt) - Date.parse(res.body.createdAt) : NaN;
          waits.push({ started, total: performance.now() - s, status: res.body.status });
        }
      })(),
    ]);
    const cpu = used(before, await cpuNow());
    const peak = rss();
    // What A's runs got meanwhile (B's few waits included): the model's calls, and the most at once.
    const served = await model.stats();
    const row = {
      'A: queued (s to queue)': `${ids.length} (${queuedIn.toFixed(1)})`,
      'A: streams open': String(streamsOpen),
      'A: runs at once (plan; most seen by the model)': `${A_CONCURRENCY} (${served.maxInFlight})`,
      'model calls during B (/s)': (served.served / SECONDS).toFixed(1),
      'B: GET /v1/agents p50 / p99 ms': `${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))} (${latencies.length} requests${refused ? `, ${refused} refused` : ''})`,
      'B: wait started after ms (each)': waits.map((w) => ms(w.started)).join(', '),
      'B: wait answered after ms (each)': waits.map((w) => ms(w.total)).join(', '),
      'B: wait statuses': [...new Set(waits.map((w) => w.status))].join(', '),
      'process CPU during B (ms/s): app + db': `${((cpu.server * 1000) / (SECONDS * 1000)).toFixed(0)} + ${((cpu.stores * 1000) / (SECONDS * 1000)).toFixed(0)}`,
      'peak RSS MB': peak.toFixed(0),
    };
    console.log(`\nNoisy neighbour (${db === 'pglite' ? 'embedded PGlite' : 'PostgreSQL + Redis'}): workspace A floods one app process; workspace B measures what it gets`);
    console.table(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, { value: v }])));
    console.log('Targets: B GET /v1/agents p99 < 100 ms; B wait started within 1 s.');
    // A's streams stay open until their runs end (minutes of backlog): end them, don't wait for them.
    stop.abort();
    await agent.destroy().catch(() => {});
  } finally {
    stop.abort();
    await sleep(500);
    await stopAll([app]);
    model.child.disconnect();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
