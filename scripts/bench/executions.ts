// The executions part of `npm run bench` (docs/benchmark.md): agent runs on a fake
// OpenAI-compatible model (test/fakes/openai.ts, ~1 ms before its answer) through the real
// provider path (a live key), in two topologies measured one after the other on the bench
// database: one app process running the workers itself (RUN_WORKERS=true), and one web process
// (RUN_WORKERS=false) with two worker processes (`launch.js worker`); rate limits in Redis in both.
//
//   BENCH_EXECUTIONS (200): sequential `wait: true` runs; half as many sequential `stream: true`
//   BENCH_ASYNC_EXECUTIONS (2.5 × BENCH_EXECUTIONS)  BENCH_ASYNC_CLIENTS (20): the 202 burst
//   BENCH_MODEL_MS (1): the fake model's latency   BENCH_TOPOLOGIES (single,split)
import type { ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import { startFakeOpenAI, type FakeOpenAI } from '../../test/fakes/openai';
import { sample, storePids, used } from './cpu';
import { freePorts, percentile, rssMb, sleep, spawnService, stopAll, waitFor } from './util';

const N = Number(process.env.BENCH_EXECUTIONS ?? 200);
const M = Number(process.env.BENCH_ASYNC_EXECUTIONS ?? Math.round(N * 2.5));
const CLIENTS = Number(process.env.BENCH_ASYNC_CLIENTS ?? 20);
const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? 1);
const TOPOLOGIES = (process.env.BENCH_TOPOLOGIES ?? 'single,split').split(',').filter((t) => t === 'single' || t === 'split');
const IDLE_MS = 3000;
const INPUT = 'Hello! What is the status of order 1234?';

export interface ExecutionsSetup {
  env: NodeJS.ProcessEnv;
  key: string;
  admin: postgres.Sql;
  dbName: string;
  redis: number | undefined;
  redisUrl: string;
}

interface Execution {
  id: string;
  status: string;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

interface Topology {
  name: string;
  origin: string;
  pids: number[];
  children: ChildProcess[];
}

type Stats = Record<string, string>;

const ms = (x: number) => (x < 10 ? x.toFixed(1) : Math.round(x).toString());
const p50p99 = (xs: number[]) => `${ms(percentile(xs, 50))} / ${ms(percentile(xs, 99))}`;

/** Starts a topology's processes and waits until they serve (web) or have started their workers. */
export async function start(name: string, env: NodeJS.ProcessEnv): Promise<Topology> {
  const [port] = await freePorts(1);
  const origin = `http://127.0.0.1:${port}`;
  const web = spawnService('main', { ...env, PORT: String(port), RUN_WORKERS: name === 'single' ? 'true' : 'false' });
  const children = [web];
  if (name === 'split') {
    for (let i = 0; i < 2; i++) {
      // LOG_LEVEL=info for the one line that says the worker runs (nothing is logged per job).
      const worker = spawnService('worker', { ...env, LOG_LEVEL: 'info' }, true);
      children.push(worker);
      await new Promise<void>((resolve, reject) => {
        worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
        worker.stdout!.on('data', (d: Buffer) => d.toString().includes('worker started') && resolve());
      });
    }
  }
  await waitFor(`${origin}/readyz`, web);
  return { name, origin, pids: children.map((c) => c.pid!), children };
}

/** The run's own fetch wrapper: the live key, JSON in, status and JSON (or raw response) out. */
export function client(origin: string, key: string) {
  const call = (method: string, path: string, body?: unknown) =>
    fetch(origin + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  return {
    call,
    async json<T>(method: string, path: string, body?: unknown, expect = 200): Promise<T> {
      const res = await call(method, path, body);
      if (res.status !== expect) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as T;
    },
  };
}
type Client = ReturnType<typeof client>;

/** Sequential `wait: true` runs: latency, the model's share of it (timed at the fake), pickup. */
async function waitRuns(api: Client, agentId: string, fake: FakeOpenAI, n: number) {
  const latency: number[] = [];
  const overhead: number[] = [];
  const model: number[] = [];
  const pickup: number[] = [];
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const servedMs = fake.servedMs;
    const t0 = performance.now();
    const e = await api.json<Execution>('POST', `/v1/agents/${agentId}/execute`, { input: `${INPUT} #${i}`, wait: true });
    const took = performance.now() - t0;
    if (e.status !== 'succeeded') failed++;
    latency.push(took);
    model.push(fake.servedMs - servedMs);
    overhead.push(took - (fake.servedMs - servedMs));
    if (e.startedAt) pickup.push(Date.parse(e.startedAt) - Date.parse(e.createdAt));
  }
  return { latency, overhead, model, pickup, failed };
}

/** Sequential `stream: true` runs: time from the request to the first `text.delta` event. */
async function streamRuns(api: Client, agentId: string, n: number) {
  const first: number[] = [];
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await api.call('POST', `/v1/agents/${agentId}/execute`, { input: `${INPUT} (stream ${i})`, stream: true });
    if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
    const decoder = new TextDecoder();
    let text = '';
    let at: number | undefined;
    const reader = res.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
      if (at === undefined && text.includes('event: text.delta')) at = performance.now() - t0;
    }
    if (at === undefined || !text.includes('event: execution.succeeded')) failed++;
    else first.push(at);
  }
  return { first, failed };
}

/** M executions fired (202) by CLIENTS concurrent clients, then polled until none is queued or running. */
async function burst(api: Client, agentId: string, m: number, clients: number) {
  const ids: string[] = [];
  const t0 = Date.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (sent < m) {
        sent++;
        const e = await api.json<Execution>('POST', `/v1/agents/${agentId}/execute`, { input: `${INPUT} (async ${sent})` }, 202);
        ids.push(e.id);
      }
    }),
  );
  const submitted = Date.now();
  const busy = async (status: string) => (await api.json<{ data: unknown[] }>('GET', `/v1/executions?status=${status}&limit=1`)).data.length > 0;
  for (const until = Date.now() + 600_000; Date.now() < until; ) {
    if (!(await busy('queued')) && !(await busy('running'))) break;
    await sleep(100);
  }
  return { ids, t0, submitted };
}

export async function measure(topology: Topology, setup: ExecutionsSetup, fake: FakeOpenAI, agentId: string, sql: postgres.Sql): Promise<Stats> {
  const api = client(topology.origin, setup.key);
  const cpuNow = async () => sample(topology.pids, await storePids(setup.admin, setup.dbName, setup.redis));
  // Warm-up: JIT, pools, prepared statements, in every process (a small burst reaches each worker).
  await waitRuns(api, agentId, fake, 20);
  await streamRuns(api, agentId, 5);
  await burst(api, agentId, 60, CLIENTS);

  // What the processes burn doing nothing (pollers, heartbeats, LISTEN), to read the rest against.
  let before = await cpuNow();
  await sleep(IDLE_MS);
  const idle = used(before, await cpuNow());

  before = await cpuNow();
  const wait = await waitRuns(api, agentId, fake, N);
  const waitCpu = used(before, await cpuNow());
  const stream = await streamRuns(api, agentId, Math.max(1, Math.round(N / 2)));

  before = await cpuNow();
  const b = await burst(api, agentId, M, CLIENTS);
  const burstCpu = used(before, await cpuNow());
  const rows = await sql<{ status: string; n: number; last: Date; pickup50: number; pickup99: number }[]>`
    select status, count(*)::int as n, max(completed_at) as last,
      percentile_disc(0.5) within group (order by extract(epoch from started_at - created_at) * 1000)::float8 as pickup50,
      percentile_disc(0.99) within group (order by extract(epoch from started_at - created_at) * 1000)::float8 as pickup99
    from executions where id = any(${b.ids}) group by status`;
  const succeeded = rows.find((r) => r.status === 'succeeded')?.n ?? 0;
  const last = Math.max(...rows.map((r) => r.last?.getTime() ?? 0));
  const perSecond = (succeeded * 1000) / (last - b.t0);
  const perExecution = (cpu: { server: number; stores: number }, n: number) => `${(cpu.server / n).toFixed(2)} + ${(cpu.stores / n).toFixed(2)}`;
  const failed = wait.failed + stream.failed + (M - succeeded);
  if (failed > 0) console.log(`warning (${topology.name}): ${failed} executions did not succeed: ${JSON.stringify(rows.map((r) => [r.status, r.n]))}`);

  return {
    'wait: true latency p50 / p99 ms': p50p99(wait.latency),
    'model time p50 ms (at the fake)': ms(percentile(wait.model, 50)),
    'overhead p50 / p99 ms (latency − model)': p50p99(wait.overhead),
    'pickup queued → running p50 / p99 ms': p50p99(wait.pickup),
    'first streamed token p50 / p99 ms': p50p99(stream.first),
    [`async: executions/s (${M}, ${CLIENTS} clients)`]: `${perSecond.toFixed(0)} (202s in ${((b.submitted - b.t0) / 1000).toFixed(1)} s)`,
    'async: pickup p50 / p99 ms (backlog)': `${ms(rows.find((r) => r.status === 'succeeded')?.pickup50 ?? NaN)} / ${ms(rows.find((r) => r.status === 'succeeded')?.pickup99 ?? NaN)}`,
    'CPU ms/execution async: app + db': perExecution(burstCpu, M),
    'CPU ms/execution wait: app + db': perExecution(waitCpu, N),
    'idle CPU ms/s: app + db': `${((idle.server * 1000) / IDLE_MS).toFixed(1)} + ${((idle.stores * 1000) / IDLE_MS).toFixed(1)}`,
    'RSS MB after the run': topology.pids.map((p) => rssMb(p).toFixed(0)).join(' + '),
  };
}

const TITLES: Record<string, string> = { single: '1 process (workers in it)', split: '1 web + 2 workers' };
/** LangGraph.js Agent Server 1.5.1 on the same kind of fake model, for scale (measured elsewhere). */
const LANGGRAPH: Stats = {
  'wait: true latency p50 / p99 ms': '~550 (runs/wait)',
  'first streamed token p50 / p99 ms': '45–68',
  [`async: executions/s (${M}, ${CLIENTS} clients)`]: '34 (20 clients)',
  'CPU ms/execution async: app + db': '13–15 (total)',
  'RSS MB after the run': '480–630',
};
const TARGETS: Stats = {
  'overhead p50 / p99 ms (latency − model)': 'p50 < 15',
  'pickup queued → running p50 / p99 ms': 'p50 < 50',
  'CPU ms/execution async: app + db': '< 5 (total)',
};

export async function benchExecutions(setup: ExecutionsSetup): Promise<void> {
  // `record: false`: the fake keeps no request in memory; it still counts them and their time.
  const fake = await startFakeOpenAI({ latencyMs: MODEL_MS, record: false });
  const env = { ...setup.env, REDIS_URL: setup.redisUrl, OPENAI_COMPATIBLE_BASE_URL: fake.url };
  const sql = postgres(setup.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  const results: Record<string, Stats> = {};
  let agentId: string | undefined;
  try {
    for (const name of TOPOLOGIES) {
      const topology = await start(name, env);
      try {
        agentId ??= (
          await client(topology.origin, setup.key).json<{ id: string }>(
            'POST',
            '/v1/agents',
            { name: 'Bench executions', model: 'openai-compatible/bench-fake', instructions: 'Answer briefly.' },
            201,
          )
        ).id;
        results[TITLES[name]!] = await measure(topology, setup, fake, agentId, sql);
      } finally {
        await sleep(500);
        await stopAll(topology.children);
      }
    }
  } finally {
    await sql.end();
    await fake.close();
  }
  const metrics = Object.keys(Object.values(results)[0] ?? {});
  console.log(
    `\nExecutions on a fake OpenAI-compatible model (${MODEL_MS} ms before it answers), live key, rate limits in Redis · ` +
      `${N} sequential wait: true runs, ${Math.max(1, Math.round(N / 2))} sequential streams, ${M} async runs by ${CLIENTS} clients`,
  );
  console.table(
    Object.fromEntries(
      metrics.map((metric) => [
        metric,
        { ...Object.fromEntries(Object.entries(results).map(([t, s]) => [t, s[metric]])), target: TARGETS[metric] ?? '', 'LangGraph.js 1.5.1': LANGGRAPH[metric] ?? '' },
      ]),
    ),
  );
  console.log('model time: measured at the fake, from request arrival to response end, per run; overhead = latency − that.');
  console.log('CPU: the app processes (web + workers) + PostgreSQL backends + Redis, over the phase, ÷ its executions.');
}
