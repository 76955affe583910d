// The hosted-pace part of `npm run bench` (docs/benchmark.md): executions on a model that
// answers the way hosted models do — 40 tokens streamed over ~1.2 s (scripts/bench/fake-model.ts,
// a process of its own) — with many clients at once, on one app process that runs its workers
// itself. Two phases, each BENCH_HOSTED_SECONDS (20) after a warm-up:
//   - `wait`: BENCH_HOSTED_CLIENTS (200) clients each running `wait: true` executions back to back:
//     executions/s against the ideal (clients ÷ model time), latency p50 / p99 against model time;
//   - `stream`: as many clients running `stream: true` executions back to back: the first
//     `text.delta` p50 / p99.
// With the process's CPU (app + PostgreSQL backends + Redis) per execution, and its peak RSS.
// Topologies (BENCH_HOSTED_TOPOLOGIES, default `postgres,pglite`): the app on the bench's
// PostgreSQL database with rate limits in Redis, and the embedded app (PGlite in the process).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { cpuMs, sample, storePids, used, type CpuSample } from './cpu';
import type { ExecutionsSetup } from './executions';
import { freePorts, percentile, rssMb, sleep, spawnService, stopAll, waitFor } from './util';

const CLIENTS = Number(process.env.BENCH_HOSTED_CLIENTS ?? 200);
const SECONDS = Number(process.env.BENCH_HOSTED_SECONDS ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_HOSTED_WARMUP_SECONDS ?? 5);
const TOPOLOGIES = (process.env.BENCH_HOSTED_TOPOLOGIES ?? 'postgres,pglite').split(',').filter((t) => t === 'postgres' || t === 'pglite');
const PHASES = (process.env.BENCH_HOSTED_PHASES ?? 'wait,stream').split(',');

export interface FakeModel {
  url: string;
  child: ChildProcess;
  stats(): Promise<{ served: number; maxInFlight: number; aborted: number; times: number[] }>;
  reset(): Promise<void>;
}

/** Starts the hosted-pace fake model in its own process (`env`: BENCH_TOKEN_MS… for another pace). */
export async function startFakeModel(env: NodeJS.ProcessEnv = process.env): Promise<FakeModel> {
  const child = fork('scripts/bench/fake-model.ts', { env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>(type: string) => new Promise<T>((resolve) => child.on('message', function on(m: { type: string }) {
    if (m.type !== type) return;
    child.off('message', on);
    resolve(m as T);
  }));
  const { url } = await next<{ url: string }>('ready');
  return {
    url,
    child,
    stats: () => {
      const p = next<{ served: number; maxInFlight: number; aborted: number; times: number[] }>('stats');
      child.send('stats');
      return p;
    },
    reset: async () => {
      const p = next('reset');
      child.send('reset');
      await p;
    },
  };
}

/** Many keep-alive connections: one per client, none shared between them. */
export const clientAgent = () => new Agent({ connections: 4096, pipelining: 1, keepAliveTimeout: 30_000 });

export interface App {
  origin: string;
  pids: number[];
  children: ChildProcess[];
  key: string;
  /** Keys the clients take turns with (an API key holds at most 100 open streams). */
  keys: string[];
  /** Keys of other workspaces (`otherWorkspaces`, embedded only). */
  others: string[];
  dataDir?: string;
}

/** Runs the admin CLI with `env` and returns its stdout. */
export function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['server/processes/launch.js', 'admin', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`admin ${args[0]} failed`))));
  });
}

/**
 * An app process that runs its own workers, on PostgreSQL (the bench database) or embedded (a fresh
 * data dir), with keys enough for `clients` clients; `detached`: in a process group of its own.
 */
export async function startApp(topology: string, setup: ExecutionsSetup, modelUrl: string, { clients = CLIENTS, detached = false, otherWorkspaces = 0 } = {}): Promise<App> {
  const [port] = await freePorts(1);
  const origin = `http://127.0.0.1:${port}`;
  let env: NodeJS.ProcessEnv = { ...setup.env, REDIS_URL: setup.redisUrl, OPENAI_COMPATIBLE_BASE_URL: modelUrl, RUN_WORKERS: 'true', PORT: String(port) };
  let key = setup.key;
  let dataDir: string | undefined;
  const others: string[] = [];
  if (topology === 'pglite') {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-bench-'));
    env = { ...env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' };
    const email = 'bench@example.com';
    await cli(env, ['create-user', '--email', email, '--password', 'bench-password']);
    await cli(env, ['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', '10000']);
    key = await cli(env, ['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'bench']);
    for (let i = 0; i < otherWorkspaces; i++) {
      const other = `bench-${i}@example.com`;
      await cli(env, ['create-user', '--email', other, '--password', 'bench-password']);
      await cli(env, ['set-plan', '--email', other, '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', '10000']);
      others.push(await cli(env, ['create-key', '--email', other, '--env', 'live', '--scopes', 'all', '--name', 'bench']));
    }
  }
  const app = spawnService('main', env, false, detached);
  await waitFor(`${origin}/readyz`, app);
  const c: Client = { agent: clientAgent(), origin, key };
  const keys = [key];
  for (let i = keys.length; i < Math.ceil(clients / 50); i++) {
    keys.push((await call<{ key: string }>(c, 'POST', '/v1/keys', { name: `hosted ${i}`, scopes: ['agents:read', 'agents:write', 'agents:execute'] }, 201)).body.key);
  }
  await c.agent.close();
  return { origin, pids: [app.pid!], children: [app], key, keys, others, dataDir };
}

export interface Client {
  agent: Agent;
  origin: string;
  key: string;
}

export async function call<T>(c: Client, method: string, p: string, body?: unknown, expect?: number): Promise<{ status: number; body: T }> {
  const res = await request(c.origin + p, {
    method: method as 'GET',
    dispatcher: c.agent,
    headers: { authorization: `Bearer ${c.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  if (expect !== undefined && res.statusCode !== expect) throw new Error(`${method} ${p} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return { status: res.statusCode, body: (text ? JSON.parse(text) : null) as T };
}

/** A stream: time to the first text.delta, and how it ended (`end`: its terminal event, or `none`). */
export async function streamOnce(c: Client, p: string, body?: unknown): Promise<{ first: number | null; ok: boolean; status: number; end: string }> {
  const t0 = performance.now();
  const res = await request(c.origin + p, {
    method: body ? 'POST' : 'GET',
    dispatcher: c.agent,
    headers: { authorization: `Bearer ${c.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  let first: number | null = null;
  let tail = '';
  let end = 'none';
  for await (const chunk of res.body) {
    const text = tail + (chunk as Buffer).toString('utf8');
    if (first === null && text.includes('event: text.delta')) first = performance.now() - t0;
    const terminal = /event: (execution\.(?:succeeded|failed|cancelled))/.exec(text);
    if (terminal) end = terminal[1]!;
    tail = text.slice(-64);
  }
  return { first, ok: end === 'execution.succeeded' && res.statusCode === 200, status: res.statusCode, end };
}

/** Samples the processes' resident memory every 250 ms; `stop()` returns the peak of their sum. */
export function watchRss(pids: number[]) {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, pids.reduce((s, p) => s + rssMb(p), 0))), 250);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

const ms = (x: number) => (Number.isNaN(x) ? '–' : x < 10 ? x.toFixed(1) : Math.round(x).toString());

export interface Phase {
  done: number;
  failed: number;
  /** Why runs failed: `HTTP <status>`, a stream's terminal event (`none`: it ended without one), or the error. */
  why: Map<string, number>;
  seconds: number;
  latency: number[];
  first: number[];
  cpu: { server: number; stores: number };
  /** CPU of the load generator (this process) and of the fake model's process. */
  rest: { client: number; model: number };
  rss: number;
}

/** CLIENTS clients, each running executions back to back for `seconds`. */
async function phase(app: App, setup: ExecutionsSetup, model: FakeModel, agentId: string, mode: 'wait' | 'stream', seconds: number, measure: boolean): Promise<Phase> {
  const agent = clientAgent();
  const restBefore = { client: cpuMs(process.pid), model: cpuMs(model.child.pid!) };
  const cpuNow = async (): Promise<CpuSample> => sample(app.pids, app.dataDir ? [] : await storePids(setup.admin, setup.dbName, setup.redis));
  const before = await cpuNow();
  const rss = watchRss(app.pids);
  const until = performance.now() + seconds * 1000;
  const latency: number[] = [];
  const first: number[] = [];
  let done = 0;
  let failed = 0;
  const why = new Map<string, number>();
  const fail = (reason: string) => {
    failed++;
    why.set(reason, (why.get(reason) ?? 0) + 1);
  };
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const c: Client = { agent, origin: app.origin, key: app.keys[i % app.keys.length]! };
      for (let n = 0; performance.now() < until; n++) {
        const input = `Hello from client ${i}, run ${n}`;
        const start = performance.now();
        try {
          if (mode === 'wait') {
            const res = await call<{ status: string }>(c, 'POST', `/v1/agents/${agentId}/execute`, { input, wait: true });
            if (res.status === 200 && res.body.status === 'succeeded') done++;
            else fail(res.status === 200 ? `execution.${res.body.status}` : `HTTP ${res.status}`);
            latency.push(performance.now() - start);
          } else {
            const res = await streamOnce(c, `/v1/agents/${agentId}/execute`, { input, stream: true });
            if (res.ok) done++;
            else fail(res.status === 200 ? res.end : `HTTP ${res.status}`);
            if (res.first !== null) first.push(res.first);
            latency.push(performance.now() - start);
          }
        } catch (err) {
          fail(err instanceof Error ? `${err.name}: ${err.message.slice(0, 80)}` : String(err));
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = used(before, await cpuNow());
  const rest = { client: cpuMs(process.pid) - restBefore.client, model: cpuMs(model.child.pid!) - restBefore.model };
  await agent.close();
  return { done, failed, why, seconds: elapsed, latency, first, cpu, rest, rss: measure ? rss() : (rss(), 0) };
}

export async function benchHosted(setup: ExecutionsSetup): Promise<void> {
  const model = await startFakeModel();
  const results: Record<string, Record<string, string>> = {};
  try {
    for (const topology of TOPOLOGIES) {
      const app = await startApp(topology, setup, model.url);
      try {
        const c: Client = { agent: clientAgent(), origin: app.origin, key: app.key };
        const { body: agent } = await call<{ id: string }>(c, 'POST', '/v1/agents', { name: 'Hosted pace', model: 'openai-compatible/hosted', instructions: 'Answer briefly.' }, 201);
        await c.agent.close();
        for (const mode of PHASES as ('wait' | 'stream')[]) {
          await phase(app, setup, model, agent.id, mode, WARMUP_SECONDS, false);
          await sleep(2000);
          const idleRss = app.pids.reduce((sum, p) => sum + rssMb(p), 0);
          await model.reset();
          const r = await phase(app, setup, model, agent.id, mode, SECONDS, true);
          const stats = await model.stats();
          const modelMs = percentile(stats.times, 50);
          const ideal = (CLIENTS * 1000) / modelMs;
          const perSecond = r.done / r.seconds;
          const row: Record<string, string> = {
            'executions/s (ideal)': `${perSecond.toFixed(1)} (${ideal.toFixed(0)})`,
            'ratio to ideal': `${(perSecond / ideal).toFixed(2)}×`,
            'latency p50 / p99 ms': `${ms(percentile(r.latency, 50))} / ${ms(percentile(r.latency, 99))}`,
            'model time p50 ms': ms(modelMs),
            'first token p50 / p99 ms': r.first.length ? `${ms(percentile(r.first, 50))} / ${ms(percentile(r.first, 99))}` : '',
            'model calls at once (max)': String(stats.maxInFlight),
            'CPU ms/execution app + db': `${(r.cpu.server / Math.max(r.done, 1)).toFixed(1)} + ${(r.cpu.stores / Math.max(r.done, 1)).toFixed(1)}`,
            'CPU ms/execution clients + model': `${(r.rest.client / Math.max(r.done, 1)).toFixed(1)} + ${(r.rest.model / Math.max(r.done, 1)).toFixed(1)}`,
            'peak RSS MB': r.rss.toFixed(0),
            'RSS idle MB, per run at once': `${idleRss.toFixed(0)}, ${((r.rss - idleRss) / Math.max(stats.maxInFlight, 1)).toFixed(2)}`,
            'failed': r.failed === 0 ? '0' : `${r.failed} (${[...r.why].map(([k, n]) => `${k}: ${n}`).join(', ')})`,
          };
          results[`${topology} · ${mode}`] = row;
          console.log(`hosted ${topology} ${mode}:`, JSON.stringify(row));
        }
      } finally {
        await sleep(500);
        await stopAll(app.children);
        if (app.dataDir) fs.rmSync(app.dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    model.child.disconnect();
  }
  console.log(`\nHosted pace: ${CLIENTS} clients back to back for ${SECONDS} s, a model streaming 40 tokens over ~1.2 s, one app process running its own workers`);
  console.table(results);
  console.log('Same scenario on this machine (2026-11-23, docs/benchmark.md): Mastra 1.71 42.7/s, p50 4.0 s, first token 2.9 s; LangGraph.js 7.8/s, p50 25 s; this service before: 12.5/s, p50 14.3 s, first token 7.5 s, RSS 1.2 GB.');
  console.log('Targets: ≥ 0.8× the ideal, latency p50 ≤ model time + 50 ms, first token p50 ≤ 250 ms, RSS < 500 MB.');
}
