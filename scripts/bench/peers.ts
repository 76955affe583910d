// `BENCH_PARTS=peers npm run bench` (docs/benchmark.md, "Peers in the same run"): Mastra and this
// service on the same hosted-pace fake model (scripts/bench/fake-model.ts, 40 tokens over ~1.2 s, a
// process of its own; a second one answers non-streamed requests whole after the same ~1.2 s, for
// Mastra's `generate`, which calls the model without streaming), one after the other in the same
// run, the same way: BENCH_PEERS_CLIENTS (200)
// clients each making BENCH_PEERS_RUNS_PER_CLIENT (6) calls back to back, after a warm-up of
// BENCH_PEERS_WARMUP_PER_CLIENT (1) call per client.
//   - Mastra (scripts/bench/peers/mastra.mjs, its own node_modules, installed here on first use):
//     `generate` (POST /api/agents/hosted/generate, the full answer in one JSON) and `stream`
//     (POST /api/agents/hosted/stream, its SSE read to the end);
//   - this service, embedded (PGlite in the process, hosted.ts's startApp): `wait: true` and
//     `stream: true` executions;
//   - Mastra on @mastra/pg's PostgresStore (a database of its own, dropped after), and this service
//     on PostgreSQL + Redis as one process and as 2 web + 1 worker processes (BENCH_PEERS_SERVERS),
//     each on a database of its own too;
//   - mode `burst`: every client starts one stream at the same moment, BENCH_PEERS_BURSTS (3) times.
// Each server process runs in a process group of its own; CPU per run = Δ(utime + stime) of every
// process of those groups ÷ the runs that succeeded (app), plus its PostgreSQL backends' and Redis's
// (db), and its peak RSS (the groups', sampled every 250 ms).
// BENCH_PEERS_ROUNDS (1) repeats the whole (the order of the two servers rotated each round),
// BENCH_PEERS_MODES (`wait,stream`) picks the modes, BENCH_PEERS_MASTRA_DB (`memory`) is
// Mastra's LibSQLStore: `memory` (`:memory:`) or `file` (a SQLite file in a temp dir).
// BENCH_FIRST_DECILES=1 also prints each row's first tokens at every tenth percentile (min to
// max): whether they came together after the last start, or spread as the starts went.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { cpuMs, sample, storePids, used } from './cpu';
import type { ExecutionsSetup } from './executions';
import { call, clientAgent, startApp, startFakeModel, streamOnce, type Client, type FakeModel, type Phase } from './hosted';
import { freePorts, median, percentile, rssMb, sleep, spawnService, stopAll, waitFor } from './util';

/** `burst`: every client starts one stream at the same moment, BURSTS times. */
type Mode = 'wait' | 'stream' | 'burst';
const KINDS = ['mastra', 'ours', 'mastra-pg', 'ours-pg', 'ours-pg-split'] as const;
type ServerKind = (typeof KINDS)[number];
const CLIENTS = Number(process.env.BENCH_PEERS_CLIENTS ?? 200);
const PER_CLIENT = Number(process.env.BENCH_PEERS_RUNS_PER_CLIENT ?? 6);
const WARMUP_PER_CLIENT = Number(process.env.BENCH_PEERS_WARMUP_PER_CLIENT ?? 1);
const ROUNDS = Number(process.env.BENCH_PEERS_ROUNDS ?? 1);
const MODES = (process.env.BENCH_PEERS_MODES ?? 'wait,stream,burst').split(',').filter((m): m is Mode => m === 'wait' || m === 'stream' || m === 'burst');
/** How many times the `burst` mode starts CLIENTS streams at once (each burst waits for the last to end). */
const BURSTS = Number(process.env.BENCH_PEERS_BURSTS ?? 3);
const SERVERS = (process.env.BENCH_PEERS_SERVERS ?? 'mastra,ours,mastra-pg,ours-pg,ours-pg-split').split(',').filter((x): x is ServerKind => KINDS.includes(x as ServerKind));
const MASTRA_DB = process.env.BENCH_PEERS_MASTRA_DB === 'file' ? 'file' : 'memory';
const DIR = 'scripts/bench/peers';


/** One server under load: how to call it once, and its process group. */
interface Server {
  name: string;
  /** Its `wait` mode calls the model without streaming: the fake that answers whole at the same pace. */
  wholeForWait: boolean;
  /** The process groups' ids (each process was started detached: its pid). */
  groups: number[];
  /** The database's share: the pids of its PostgreSQL backends (and Redis), none when it is in the process. */
  stores(): Promise<number[]>;
  /** The database, for the set-up line. */
  db: string;
  once(i: number, n: number, mode: Mode): Promise<{ ok: boolean; why?: string; first?: number }>;
  /** Ours: where each run created since `since` (epoch ms) spent its time, from the executions' own timestamps. */
  stages?(since: number): Promise<Stages>;
  stop(): Promise<void>;
}

/**
 * From an execution's timestamps (each its transaction's time): `queued` = started − created (0
 * for a run started in place; a worker's claim otherwise), `run` = completed − started (the model's
 * ~1.2 s, plus the loop's lag in the process that ran it). What a client waited beyond both is
 * the start before the create and the answer after the finish.
 */
interface Stages {
  queued: number[];
  run: number[];
}

/** The stages of the executions created since `since`, read with GET /v1/executions, newest first, page by page. */
async function readStages(c: Client, since: number): Promise<Stages> {
  const out: Stages = { queued: [], run: [] };
  let after: string | undefined;
  for (;;) {
    const page = await call<{ data: { createdAt: string; startedAt: string | null; completedAt: string | null }[]; nextCursor?: string }>(c, 'GET', `/v1/executions?limit=100${after ? `&after=${after}` : ''}`, undefined, 200);
    for (const e of page.body.data) {
      const created = Date.parse(e.createdAt);
      if (created < since) return out;
      if (e.startedAt === null || e.completedAt === null) continue;
      out.queued.push(Date.parse(e.startedAt) - created);
      out.run.push(Date.parse(e.completedAt) - Date.parse(e.startedAt));
    }
    if (!page.body.nextCursor) return out;
    after = page.body.nextCursor;
  }
}

let tick: number | undefined;
const msPerTick = () => (tick ??= 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()));

/** The pids of a process group (field 5 of /proc/<pid>/stat), and their user + system CPU in ms (fields 14, 15). */
function group(pgrps: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pgrps.includes(Number(f[2]))) out.set(Number(entry), (Number(f[11]) + Number(f[12])) * msPerTick());
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU ms the group used between two samples (a process new since `a` counts from 0; one gone since is lost). */
function groupUsed(a: Map<number, number>, b: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of b) sum += Math.max(ms - (a.get(pid) ?? 0), 0);
  return sum;
}

/** The group's resident memory (sum of its processes' VmRSS), sampled every 250 ms; `stop()` returns the peak. */
function watchGroupRss(pgrps: number[]) {
  let peak = 0;
  const read = () => (peak = Math.max(peak, [...group(pgrps).keys()].reduce((s, p) => s + (rssMb(p) || 0), 0)));
  const timer = setInterval(read, 250);
  return () => {
    clearInterval(timer);
    read();
    return peak;
  };
}

/** SIGTERM to the whole group, then wait (at most 10 s) for the leader. */
async function stopGroup(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // already gone
  }
  await Promise.race([exited, sleep(10_000)]);
}

/** A detached group outlives the bench if it dies: kill it when this process exits; returns the undo. */
function killOnExit(pgrp: number) {
  const kill = () => {
    try {
      process.kill(-pgrp, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', kill);
  return () => void process.off('exit', kill);
}

/** Mastra's node_modules, installed on first use (never by the root npm ci). */
function ensureInstalled() {
  if (fs.existsSync(path.join(DIR, 'node_modules'))) return;
  console.log(`peers: installing ${DIR}'s dependencies (first use)…`);
  execFileSync('npm', ['install', '--prefix', DIR, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

const mastraVersion = () => (JSON.parse(fs.readFileSync(path.join(DIR, 'node_modules/@mastra/core/package.json'), 'utf8')) as { version: string }).version;

/** Reads a response body to its end: the time to its first text delta, and whether it saw `finish` and `[DONE]`. */
async function readSse(body: AsyncIterable<Buffer>, t0: number) {
  let first: number | undefined;
  let tail = '';
  let finish = false;
  let done = false;
  let error = false;
  for await (const chunk of body) {
    const text = tail + chunk.toString('utf8');
    if (first === undefined && text.includes('"type":"text-delta"')) first = performance.now() - t0;
    if (text.includes('"type":"finish"')) finish = true;
    if (text.includes('"type":"error"')) error = true;
    if (text.includes('data: [DONE]')) done = true;
    tail = text.slice(-64);
  }
  return { first, ok: finish && done && !error };
}

async function startMastra(modelUrl: string, wholeUrl: string, dataDir: string, pg?: { setup: ExecutionsSetup; dbName: string }): Promise<Server> {
  const [port] = await freePorts(1);
  const origin = `http://127.0.0.1:${port}`;
  const dbUrl = MASTRA_DB === 'file' ? `file:${path.join(dataDir, 'mastra.db')}` : ':memory:';
  const pgUrl = pg ? pg.setup.env.DATABASE_URL!.replace(/\/[^/?]*(\?|$)/, `/${pg.dbName}$1`) : '';
  const child = spawn(process.execPath, [path.join(DIR, 'mastra.mjs')], {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, PORT: String(port), MODEL_URL: modelUrl, MODEL_WHOLE_URL: wholeUrl, MASTRA_DB_URL: dbUrl, MASTRA_PG_URL: pgUrl, MASTRA_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('Mastra did not start within 60 s'))), 60_000);
    child.once('message', () => (clearTimeout(timer), resolve()));
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`Mastra exited with ${code}`))));
  });
  child.removeAllListeners('exit');
  const undo = killOnExit(child.pid!);
  const agent = clientAgent();
  return {
    name: `Mastra ${mastraVersion()}${pg ? ' (PostgreSQL)' : ''}`,
    wholeForWait: true,
    groups: [child.pid!],
    stores: () => (pg ? storePids(pg.setup.admin, pg.dbName, undefined) : Promise.resolve([])),
    db: pg ? '@mastra/pg PostgresStore' : MASTRA_DB === 'file' ? 'LibSQLStore, a SQLite file' : 'LibSQLStore :memory:',
    once: async (i, n, mode) => {
      // A thread per run (a new conversation each time, like an execution), a resource per client.
      const body = JSON.stringify({ messages: `Hello from client ${i}, run ${n}`, memory: { thread: `c${i}-r${n}-${Math.random().toString(36).slice(2)}`, resource: `client-${i}` } });
      const t0 = performance.now();
      const res = await request(`${origin}/api/agents/${mode === 'wait' ? 'hosted-whole/generate' : 'hosted/stream'}`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (mode === 'wait') {
        const text = await res.body.text();
        if (res.statusCode !== 200) return { ok: false, why: `HTTP ${res.statusCode}` };
        const answer = (JSON.parse(text) as { text?: string }).text ?? '';
        return answer.includes('word39') ? { ok: true } : { ok: false, why: 'no full answer' };
      }
      if (res.statusCode !== 200) return (await res.body.text(), { ok: false, why: `HTTP ${res.statusCode}` });
      const { first, ok } = await readSse(res.body, t0);
      return { ok, first, why: ok ? undefined : 'stream without finish' };
    },
    stop: async () => {
      await agent.close();
      await stopGroup(child);
      undo();
    },
  };
}

/** Ours: `pglite` (one embedded process), `pg` (one process on PostgreSQL + Redis), `pg-split` (2 web + 1 worker). */
async function startOurs(setup: ExecutionsSetup, modelUrl: string, topology: 'pglite' | 'pg' | 'pg-split'): Promise<Server> {
  const app = topology === 'pg-split' ? await startSplit(setup, modelUrl) : await startApp(topology === 'pg' ? 'postgres' : 'pglite', setup, modelUrl, { clients: CLIENTS, detached: true });
  const undo = app.children.map((c) => killOnExit(c.pid!));
  const admin: Client = { agent: clientAgent(), origin: app.origin, key: app.key };
  const { body: created } = await call<{ id: string }>(admin, 'POST', '/v1/agents', { name: 'Hosted pace', model: 'openai-compatible/hosted', instructions: 'Answer briefly.' }, 201);
  await admin.agent.close();
  const agent = clientAgent();
  const target = `/v1/agents/${created.id}/execute`;
  const lister: Client = { agent, origin: app.origin, key: app.key };
  const origins = 'origins' in app ? app.origins : [app.origin];
  return {
    name: `this service (${{ pglite: 'embedded, PGlite', pg: 'PostgreSQL + Redis, 1 process', 'pg-split': 'PostgreSQL + Redis, 2 web + 1 worker' }[topology]})`,
    wholeForWait: false,
    groups: app.children.map((c) => c.pid!),
    stores: () => (topology === 'pglite' ? Promise.resolve([]) : storePids(setup.admin, setup.dbName, setup.redis)),
    db: topology === 'pglite' ? 'PGlite in the process' : 'PostgreSQL, rate limits in Redis',
    once: async (i, n, mode) => {
      const c: Client = { agent, origin: origins[i % origins.length]!, key: app.keys[i % app.keys.length]! };
      const input = `Hello from client ${i}, run ${n}`;
      if (mode === 'wait') {
        const res = await call<{ status: string }>(c, 'POST', target, { input, wait: true });
        if (res.status === 200 && res.body.status === 'succeeded') return { ok: true };
        return { ok: false, why: res.status === 200 ? `execution.${res.body.status}` : `HTTP ${res.status}` };
      }
      const res = await streamOnce(c, target, { input, stream: true });
      return { ok: res.ok, first: res.first ?? undefined, why: res.ok ? undefined : res.status === 200 ? res.end : `HTTP ${res.status}` };
    },
    stages: (since) => readStages(lister, since),
    stop: async () => {
      await agent.close();
      await stopAll(app.children);
      for (const u of undo) u();
      if (app.dataDir) fs.rmSync(app.dataDir, { recursive: true, force: true });
    },
  };
}

/** Two web processes (no workers) and one worker process on the bench's PostgreSQL, each detached; clients alternate between the webs. */
async function startSplit(setup: ExecutionsSetup, modelUrl: string) {
  const ports = await freePorts(2);
  const env: NodeJS.ProcessEnv = { ...setup.env, REDIS_URL: setup.redisUrl, OPENAI_COMPATIBLE_BASE_URL: modelUrl };
  const webs = ports.map((port) => spawnService('main', { ...env, RUN_WORKERS: 'false', PORT: String(port) }, false, true));
  const worker = spawnService('worker', { ...env, LOG_LEVEL: 'info' }, true, true);
  await new Promise<void>((resolve, reject) => {
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    worker.stdout!.on('data', (d: Buffer) => d.toString().includes('worker started') && resolve());
  });
  worker.removeAllListeners('exit');
  const origins = ports.map((port) => `http://127.0.0.1:${port}`);
  for (const [k, web] of webs.entries()) await waitFor(`${origins[k]}/readyz`, web);
  const c: Client = { agent: clientAgent(), origin: origins[0]!, key: setup.key };
  const keys = [setup.key];
  for (let i = keys.length; i < Math.ceil(CLIENTS / 50); i++) {
    keys.push((await call<{ key: string }>(c, 'POST', '/v1/keys', { name: `peers ${i}`, scopes: ['agents:read', 'agents:write', 'agents:execute'] }, 201)).body.key);
  }
  await c.agent.close();
  return { origin: origins[0]!, origins, children: [...webs, worker], key: setup.key, keys, dataDir: undefined as string | undefined };
}

/** A hosted-pace phase (hosted.ts), with the server's CPU as one figure (its whole process group). */
interface Measured extends Omit<Phase, 'cpu'> {
  round: number;
  server: string;
  kind: ServerKind;
  mode: Mode;
  cpu: number;
  /** The database's CPU (PostgreSQL backends, Redis): 0 when it is in the server's process. */
  db: number;
  modelMs: number;
  maxInFlight: number;
  stages?: Stages;
}

/** CLIENTS clients, each making `perClient` calls back to back. */
async function load(server: Server, kind: ServerKind, model: FakeModel, mode: Mode, perClient: number, round: number): Promise<Measured> {
  await model.reset();
  const restBefore = { client: cpuMs(process.pid), model: cpuMs(model.child.pid!) };
  const before = group(server.groups);
  const storesBefore = sample([], await server.stores());
  const rss = watchGroupRss(server.groups);
  const latency: number[] = [];
  const first: number[] = [];
  const why = new Map<string, number>();
  let done = 0;
  let failed = 0;
  const t0 = performance.now();
  const one = async (i: number, n: number) => {
    const start = performance.now();
    let r: { ok: boolean; why?: string; first?: number };
    try {
      r = await server.once(i, n, mode === 'burst' ? 'stream' : mode);
    } catch (err) {
      r = { ok: false, why: err instanceof Error ? `${err.name}: ${err.message.slice(0, 80)}` : String(err) };
    }
    latency.push(performance.now() - start);
    if (r.first !== undefined) first.push(r.first);
    if (r.ok) done++;
    else {
      failed++;
      // When and how a run failed (the first few of a phase): a reused idle socket fails at once, a server's close later.
      if (failed <= 5) console.log(`failed: run ${n} of client ${i}, sent at ${Math.round(start - t0)} ms, after ${Math.round(performance.now() - start)} ms: ${r.why}`);
      why.set(r.why ?? '?', (why.get(r.why ?? '?') ?? 0) + 1);
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, i) => i);
  if (mode === 'burst') {
    // All clients at the same moment, then again once every stream has ended.
    for (let n = 0; n < perClient; n++) await Promise.all(clients.map((i) => one(i, n)));
  } else {
    await Promise.all(clients.map(async (i) => {
      for (let n = 0; n < perClient; n++) await one(i, n);
    }));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = groupUsed(before, group(server.groups));
  const db = used(storesBefore, sample([], await server.stores())).stores;
  const rest = { client: cpuMs(process.pid) - restBefore.client, model: cpuMs(model.child.pid!) - restBefore.model };
  const stats = await model.stats();
  return { round, server: server.name, kind, mode, done, failed, why, seconds, latency, first, cpu, rest, db, rss: rss(), modelMs: percentile(stats.times, 50), maxInFlight: stats.maxInFlight };
}

/** `queued p50/p90 …, run p50/p90 …` (short: `q50 (q90) / r50 (r90)`). */
const stagesText = (s: Stages, short = false) => {
  const p = (xs: number[]) => [ms(percentile(xs, 50)), ms(percentile(xs, 90))];
  const [q50, q90] = p(s.queued);
  const [r50, r90] = p(s.run);
  return short ? `${q50} (${q90}) / ${r50} (${r90})` : `queued p50/p90 ${q50}/${q90} ms, run p50/p90 ${r50}/${r90} ms`;
};
const ms = (x: number) => (Number.isNaN(x) ? '–' : x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'));
const rate = (m: Measured) => m.done / m.seconds;
/** The runs/s of a closed loop whose server added nothing: every client always waiting on a model call of the fake's p50. */
const ceiling = (m: Measured) => (CLIENTS * 1000) / m.modelMs;
const cpuPerRun = (m: Measured) => m.cpu / Math.max(m.done, 1);
const dbPerRun = (m: Measured) => m.db / Math.max(m.done, 1);

function setupLine(loadAtStart: number[], servers: Map<ServerKind, string>): string {
  let commit = '?';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const cpu = os.cpus()[0]?.model ?? '?';
  const first = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 30);
  const each = Number(process.env.BENCH_TOKEN_MS ?? 30);
  const pace = `streamed: ${first} ms then 40 tokens ${each} ms apart; not streamed (Mastra's generate): the whole answer after ${first + 39 * each} ms`;
  return [
    `commit ${commit}, node ${process.version}, ${cpu}, ${os.availableParallelism()} cores, loadavg at start ${loadAtStart.map((x) => x.toFixed(2)).join(' ')}`,
    `wait / stream: ${CLIENTS} clients × ${PER_CLIENT} runs back to back (${CLIENTS * PER_CLIENT} runs per row) after ${CLIENTS * WARMUP_PER_CLIENT} warm-up runs; burst: ${CLIENTS} streams started at once, ${BURSTS} times; model: ${pace}`,
    ...[...servers].map(([kind, db]) => `${kind}: ${kind.startsWith('mastra') ? `Mastra ${mastraVersion()} (@mastra/hono's MastraServer on @hono/node-server; @ai-sdk/openai-compatible; @mastra/memory on ${db}, a new thread per run)` : `this service on ${db}`}`),
    `CPU: the server's process groups (app), plus its PostgreSQL backends and Redis (db) where it has them`,
    `sharing the cores: the load generator (this process), the fake models (their own processes), the one server being measured (no other is running), PostgreSQL and Redis (idle unless it is the server's)`,
  ].join('\n');
}

/** Ours is compared with the Mastra on the same kind of storage. */
const peerOf = (kind: ServerKind): ServerKind | null => (kind === 'ours' ? 'mastra' : kind === 'ours-pg' || kind === 'ours-pg-split' ? 'mastra-pg' : null);

/**
 * `fresh`: a database of its own for each server of ours on PostgreSQL (setup.ts), as Mastra gets
 * one: a server measured after another started on the runs and queued work that one left.
 */
export async function benchPeers(setup: ExecutionsSetup, fresh: () => Promise<Omit<ExecutionsSetup, 'redisUrl'> & { drop: () => Promise<void> }>): Promise<void> {
  ensureInstalled();
  const loadAtStart = os.loadavg();
  const model = await startFakeModel();
  // A hosted model answers a non-streamed request after the time it takes to stream it: the first
  // token's wait plus 39 more tokens' (the 40-token answer), then all of it at once.
  const wholeMs = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 30) + 39 * Number(process.env.BENCH_TOKEN_MS ?? 30);
  const whole = await startFakeModel({ ...process.env, BENCH_FIRST_TOKEN_MS: String(wholeMs) });
  const results: Measured[] = [];
  const dbs = new Map<ServerKind, string>();
  const onFresh = async (topology: 'pg' | 'pg-split') => {
    const { drop, ...own } = await fresh();
    try {
      return { server: await startOurs({ ...own, redisUrl: setup.redisUrl }, model.url, topology), after: drop };
    } catch (err) {
      await drop();
      throw err;
    }
  };
  const starters: Record<ServerKind, (dataDir: string) => Promise<{ server: Server; after?: () => Promise<void> }>> = {
    mastra: async (dataDir) => ({ server: await startMastra(model.url, whole.url, dataDir) }),
    'mastra-pg': async (dataDir) => {
      // A database of its own, dropped afterwards.
      const dbName = `peers_mastra_${Math.random().toString(36).slice(2, 10)}`;
      await setup.admin.unsafe(`create database ${dbName}`);
      const drop = async () => void (await setup.admin.unsafe(`drop database if exists ${dbName} with (force)`));
      try {
        return { server: await startMastra(model.url, whole.url, dataDir, { setup, dbName }), after: drop };
      } catch (err) {
        await drop();
        throw err;
      }
    },
    ours: async () => ({ server: await startOurs(setup, model.url, 'pglite') }),
    'ours-pg': () => onFresh('pg'),
    'ours-pg-split': () => onFresh('pg-split'),
  };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (let k = 0; k < SERVERS.length; k++) {
        const kind = SERVERS[(k + round - 1) % SERVERS.length]!;
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-peers-'));
        const { server, after } = await starters[kind](dataDir);
        dbs.set(kind, server.db);
        try {
          for (const mode of MODES) {
            const fake = mode === 'wait' && server.wholeForWait ? whole : model;
            await load(server, kind, fake, mode, WARMUP_PER_CLIENT, round);
            await sleep(1000);
            const since = Date.now();
            const m = await load(server, kind, fake, mode, mode === 'burst' ? BURSTS : PER_CLIENT, round);
            // Read after the phase's CPU was taken: the listing is not counted.
            m.stages = await server.stages?.(since);
            results.push(m);
            if (process.env.BENCH_FIRST_DECILES && m.first.length) console.log('first token deciles', [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((q) => Math.round(percentile(m.first, q))).join(' '));
            console.log(`peers round ${round}: ${m.server} ${mode}: ${rate(m).toFixed(1)} runs/s, p50 ${ms(percentile(m.latency, 50))} ms, first token p50 ${ms(percentile(m.first, 50))} ms, CPU ${cpuPerRun(m).toFixed(1)} + ${dbPerRun(m).toFixed(1)} ms/run, RSS ${m.rss.toFixed(0)} MB, at once ${m.maxInFlight}, failed ${m.failed}${m.stages ? `, ${stagesText(m.stages)}` : ''}`);
            await sleep(1000);
          }
        } finally {
          await server.stop();
          await after?.();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    model.child.disconnect();
    whole.child.disconnect();
  }

  console.log(`\nPeers in the same run (BENCH_PARTS=peers)\n${setupLine(loadAtStart, dbs)}`);
  const isMastra = (m: Measured) => m.kind.startsWith('mastra');
  const row = (m: Measured) => ({
    round: m.round,
    server: m.server,
    mode: m.mode === 'burst' ? `${CLIENTS} streams at once` : m.mode === 'wait' ? (isMastra(m) ? 'generate' : 'wait: true') : isMastra(m) ? 'stream' : 'stream: true',
    'runs/s': m.mode === 'burst' ? '' : rate(m).toFixed(1),
    'of ceiling': m.mode === 'burst' ? '' : `${Math.round((100 * rate(m)) / ceiling(m))} %`,
    'p50 / p99 ms': `${ms(percentile(m.latency, 50))} / ${ms(percentile(m.latency, 99))}`,
    'first token p50 / p99 ms': m.first.length ? `${ms(percentile(m.first, 50))} / ${ms(percentile(m.first, 99))}` : '',
    'CPU ms/run app + db': `${cpuPerRun(m).toFixed(1)} + ${dbPerRun(m).toFixed(1)}`,
    'CPU ms/run clients + model': `${(m.rest.client / Math.max(m.done, 1)).toFixed(1)} + ${(m.rest.model / Math.max(m.done, 1)).toFixed(1)}`,
    'peak RSS MB': m.rss.toFixed(0),
    'model p50 ms / max at once': `${ms(m.modelMs)} / ${m.maxInFlight}`,
    'queued / run p50 (p90) ms': m.stages ? stagesText(m.stages, true) : '',
    failed: m.failed === 0 ? '0' : `${m.failed} (${[...m.why].map(([k, n]) => `${k}: ${n}`).join(', ')})`,
  });
  console.table(results.map(row));
  // Ours against the Mastra on the same storage, same mode, same round; the median when there are several rounds.
  const ratios = SERVERS.flatMap((kind) => {
    const peer = peerOf(kind);
    if (!peer || !SERVERS.includes(peer)) return [];
    return MODES.filter((mode) => mode !== 'burst').map((mode) => {
      const pairs = range1(ROUNDS).map((round) => {
        const pick = (k: ServerKind) => results.find((m) => m.round === round && m.mode === mode && m.kind === k);
        return [pick(peer), pick(kind)] as const;
      });
      const ok = pairs.filter((p): p is readonly [Measured, Measured] => !!p[0] && !!p[1]);
      const tput = ok.map(([m, o]) => rate(o) / rate(m));
      const cpu = ok.map(([m, o]) => (cpuPerRun(o) + dbPerRun(o)) / (cpuPerRun(m) + dbPerRun(m)));
      const most = ok.map(([m, o]) => ceiling(o) / rate(m));
      const list = (xs: number[]) => (xs.length ? `${median(xs).toFixed(2)}×${xs.length > 1 ? ` (${xs.map((x) => x.toFixed(2)).join(', ')})` : ''}` : '–');
      return { comparison: `${kind} ${mode === 'wait' ? 'wait: true ÷ ' + peer + ' generate' : 'stream: true ÷ ' + peer + ' stream'}`, 'runs/s ratio': list(tput), 'most possible': list(most), 'CPU per run (app + db) ratio': list(cpu) };
    });
  });
  console.table(ratios);
  console.log("runs/s ratio > 1: ours faster; CPU per run ratio < 1: ours cheaper. Target (issue 49): ours ≥ 1.3× the Mastra on the same storage.");
  console.log(
    `ceiling: ${CLIENTS} clients ÷ the model's p50 (each client waits for its call before the next), the most runs/s any server can reach here; ` +
      "most possible: ours at that ceiling ÷ the Mastra's runs/s, the highest ratio this run allows (docs/benchmark.md, \"The ceiling of a closed loop\").",
  );
}

const range1 = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
