// The usage-analytics part of `npm run bench` (docs/benchmark.md, docs/analytics.md):
// 1. What recording costs executions: one app process (workers in it) on the fake ~1 ms model,
//    measured as the executions part measures it, with recording on and off in alternate rounds.
//    Off = USAGE_ANALYTICS=false (no request counting, no compaction); the usage record is part
//    of finish's one statement (migration 0015) and is written in both.
//    (What it costs the lists is the list part's "usage analytics off" server.)
// 2. History: USAGE_HISTORY (1,000,000) executions' usage records over 366 days written and
//    compacted (time and CPU), then the 366-day query grouped by agent, BENCH_USAGE_QUERIES (30)
//    times over HTTP — on PostgreSQL and on the embedded PGlite.
//
//   BENCH_USAGE_ROUNDS (2)  USAGE_HISTORY (1000000)  BENCH_USAGE_QUERIES (30)  BENCH_USAGE_DBS (postgres,pglite)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startFakeOpenAI } from '../../test/fakes/openai';
import { client, measure, start, type ExecutionsSetup } from './executions';
import { freePorts, percentile, sleep, spawnService, stopAll, waitFor } from './util';

const ROUNDS = Number(process.env.BENCH_USAGE_ROUNDS ?? 2);
const QUERIES = Number(process.env.BENCH_USAGE_QUERIES ?? 30);
const DBS = (process.env.BENCH_USAGE_DBS ?? 'postgres,pglite').split(',');

async function recordingCost(setup: ExecutionsSetup): Promise<void> {
  const fake = await startFakeOpenAI({ latencyMs: 1, record: false });
  const sql = postgres(setup.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  const results: Record<string, Record<string, string>> = {};
  let agentId: string | undefined;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const on of round % 2 ? [true, false] : [false, true]) {
        const env = { ...setup.env, REDIS_URL: setup.redisUrl, OPENAI_COMPATIBLE_BASE_URL: fake.url, USAGE_ANALYTICS: on ? 'true' : 'false' };
        const topology = await start('single', env);
        try {
          agentId ??= (await client(topology.origin, setup.key).json<{ id: string }>('POST', '/v1/agents', { name: 'Bench usage', model: 'openai-compatible/bench-fake' }, 201)).id;
          results[`round ${round}, recording ${on ? 'on' : 'off'}`] = await measure(topology, setup, fake, agentId, sql);
        } finally {
          await sleep(500);
          await stopAll(topology.children);
        }
      }
    }
  } finally {
    await sql.end();
    await fake.close();
  }
  const keep = ['overhead p50 / p99 ms (latency − model)', 'CPU ms/execution wait: app + db', 'async: executions/s (500, 20 clients)', 'CPU ms/execution async: app + db'];
  const metrics = Object.keys(Object.values(results)[0] ?? {}).filter((m) => keep.some((k) => m.startsWith(k.split(' (')[0]!)));
  console.log('\nUsage recording on vs off: executions on one process (workers in it), fake ~1 ms model, rounds alternated');
  console.table(Object.fromEntries(metrics.map((m) => [m, Object.fromEntries(Object.entries(results).map(([k, s]) => [k, s[m]]))])));
}

/** Runs the history child on a database; its one JSON line. */
function history(env: NodeJS.ProcessEnv): Promise<{ key: string; insertMs: number; compactMs: number; compactCpuMs: number; rollupRows: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/usage-history.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`usage history exited with ${code}`))));
  });
}

async function historyQuery(setup: ExecutionsSetup, adminUrl: string): Promise<void> {
  const rows: Record<string, Record<string, string>> = {};
  for (const kind of DBS) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-usage-bench-'));
    const dbName = `bench_usage_${randomBytes(3).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    const env: NodeJS.ProcessEnv = { ...setup.env, REDIS_URL: '', DATA_DIR: tmp };
    if (kind === 'postgres') {
      await admin.unsafe(`create database ${dbName}`);
      env.DATABASE_URL = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);
    } else delete env.DATABASE_URL;
    try {
      const made = await history(env);
      const row: Record<string, string> = {
        'records written (s)': (made.insertMs / 1000).toFixed(1),
        'compaction: wall s / CPU s (app + db)': `${(made.compactMs / 1000).toFixed(1)} / ${(made.compactCpuMs / 1000).toFixed(1)}`,
        'compaction: records/s': Math.round(Number(process.env.USAGE_HISTORY ?? 1_000_000) / (made.compactMs / 1000)).toString(),
        'rollup rows (hour + day)': String(made.rollupRows),
      };
      // The query with the cache of settled buckets (the default), then with none (USAGE_CACHE_ROWS=0).
      for (const cacheRows of ['100000', '0']) {
        const [port] = await freePorts(1);
        const app = spawnService('main', { ...env, PORT: String(port), RUN_WORKERS: 'false', USAGE_CACHE_ROWS: cacheRows });
        try {
          const origin = `http://127.0.0.1:${port}`;
          await waitFor(`${origin}/readyz`, app);
          const startDay = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
          const url = `${origin}/v1/analytics/executions?start=${startDay}&groupBy=agentId&limit=366`;
          const times: number[] = [];
          let executions = 0;
          let bytes = 0;
          for (let i = 0; i < QUERIES + 3; i++) {
            const t0 = performance.now();
            const res = await fetch(url, { headers: { authorization: `Bearer ${made.key}` } });
            const text = await res.text();
            if (res.status !== 200) throw new Error(`the history query answered ${res.status}: ${text.slice(0, 300)}`);
            times.push(performance.now() - t0);
            executions = (JSON.parse(text) as { totals: { executions: number } }).totals.executions;
            bytes = text.length;
          }
          const steady = times.slice(3);
          const label = cacheRows === '0' ? 'no cache' : 'cache';
          row[`366-day query by agent, ${label}: first / p50 / p99 ms`] = `${times[0]!.toFixed(0)} / ${percentile(steady, 50).toFixed(1)} / ${percentile(steady, 99).toFixed(1)}`;
          row['answer: executions, KB'] = `${executions}, ${Math.round(bytes / 1024)}`;
        } finally {
          await stopAll([app]);
        }
      }
      rows[kind === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)'] = row;
    } finally {
      if (kind === 'postgres') await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
      await admin.end();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  console.log(`\nUsage history: ${Number(process.env.USAGE_HISTORY ?? 1_000_000).toLocaleString('en')} executions over 366 days, compacted, then GET /v1/analytics/executions?start=<365 days ago>&groupBy=agentId&limit=366 × ${QUERIES} (one client, after 3 warm-ups)`);
  console.table(rows);
  console.log('target: p50 < 50 ms on both databases. first: right after start (JIT cold, nothing cached); p50/p99 of the next ones after 3 more.');
}

export async function benchUsage(setup: ExecutionsSetup, adminUrl: string): Promise<void> {
  await recordingCost(setup);
  await historyQuery(setup, adminUrl);
}
