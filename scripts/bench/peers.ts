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
//     `stream: true` executions.
// Each server runs in a process group of its own; CPU per run = Δ(utime + stime) of every process
// of that group ÷ the runs that succeeded, and its peak RSS (the group's, sampled every 250 ms).
// BENCH_PEERS_ROUNDS (1) repeats the whole (the order of the two servers rotated each round),
// BENCH_PEERS_MODES (`wait,stream`) picks the modes, BENCH_PEERS_MASTRA_DB (`memory`) is
// Mastra's LibSQLStore: `memory` (`:memory:`) or `file` (a SQLite file in a temp dir).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { cpuMs } from './cpu';
import type { ExecutionsSetup } from './executions';
import { call, clientAgent, startApp, startFakeModel, streamOnce, type Client, type FakeModel, type Phase } from './hosted';
import { freePorts, median, percentile, rssMb, sleep, stopAll } from './util';

const CLIENTS = Number(process.env.BENCH_PEERS_CLIENTS ?? 200);
const PER_CLIENT = Number(process.env.BENCH_PEERS_RUNS_PER_CLIENT ?? 6);
const WARMUP_PER_CLIENT = Number(process.env.BENCH_PEERS_WARMUP_PER_CLIENT ?? 1);
const ROUNDS = Number(process.env.BENCH_PEERS_ROUNDS ?? 1);
const MODES = (process.env.BENCH_PEERS_MODES ?? 'wait,stream').split(',').filter((m): m is Mode => m === 'wait' || m === 'stream');
const MASTRA_DB = process.env.BENCH_PEERS_MASTRA_DB === 'file' ? 'file' : 'memory';
const DIR = 'scripts/bench/peers';

type Mode = 'wait' | 'stream';

/** One server under load: how to call it once, and its process group. */
interface Server {
  name: string;
  /** Its `wait` mode calls the model without streaming: the fake that answers whole at the same pace. */
  wholeForWait: boolean;
  /** The process group's id (the server's pid: it was started detached). */
  pgrp: number;
  once(i: number, n: number, mode: Mode): Promise<{ ok: boolean; why?: string; first?: number }>;
  stop(): Promise<void>;
}

let tick: number | undefined;
const msPerTick = () => (tick ??= 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()));

/** The pids of a process group (field 5 of /proc/<pid>/stat), and their user + system CPU in ms (fields 14, 15). */
function group(pgrp: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgrp) out.set(Number(entry), (Number(f[11]) + Number(f[12])) * msPerTick());
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
function watchGroupRss(pgrp: number) {
  let peak = 0;
  const read = () => (peak = Math.max(peak, [...group(pgrp).keys()].reduce((s, p) => s + (rssMb(p) || 0), 0)));
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

async function startMastra(modelUrl: string, wholeUrl: string, dataDir: string): Promise<Server> {
  const [port] = await freePorts(1);
  const origin = `http://127.0.0.1:${port}`;
  const dbUrl = MASTRA_DB === 'file' ? `file:${path.join(dataDir, 'mastra.db')}` : ':memory:';
  const child = spawn(process.execPath, [path.join(DIR, 'mastra.mjs')], {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, PORT: String(port), MODEL_URL: modelUrl, MODEL_WHOLE_URL: wholeUrl, MASTRA_DB_URL: dbUrl, MASTRA_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
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
    name: `Mastra ${mastraVersion()}`,
    wholeForWait: true,
    pgrp: child.pid!,
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

async function startOurs(setup: ExecutionsSetup, modelUrl: string): Promise<Server> {
  const app = await startApp('pglite', setup, modelUrl, { clients: CLIENTS, detached: true });
  const undo = killOnExit(app.children[0]!.pid!);
  const admin: Client = { agent: clientAgent(), origin: app.origin, key: app.key };
  const { body: created } = await call<{ id: string }>(admin, 'POST', '/v1/agents', { name: 'Hosted pace', model: 'openai-compatible/hosted', instructions: 'Answer briefly.' }, 201);
  await admin.agent.close();
  const agent = clientAgent();
  const target = `/v1/agents/${created.id}/execute`;
  return {
    name: 'this service (embedded, PGlite)',
    wholeForWait: false,
    pgrp: app.children[0]!.pid!,
    once: async (i, n, mode) => {
      const c: Client = { agent, origin: app.origin, key: app.keys[i % app.keys.length]! };
      const input = `Hello from client ${i}, run ${n}`;
      if (mode === 'wait') {
        const res = await call<{ status: string }>(c, 'POST', target, { input, wait: true });
        if (res.status === 200 && res.body.status === 'succeeded') return { ok: true };
        return { ok: false, why: res.status === 200 ? `execution.${res.body.status}` : `HTTP ${res.status}` };
      }
      const res = await streamOnce(c, target, { input, stream: true });
      return { ok: res.ok, first: res.first ?? undefined, why: res.ok ? undefined : res.status === 200 ? res.end : `HTTP ${res.status}` };
    },
    stop: async () => {
      await agent.close();
      await stopAll(app.children);
      undo();
      if (app.dataDir) fs.rmSync(app.dataDir, { recursive: true, force: true });
    },
  };
}

/** A hosted-pace phase (hosted.ts), with the server's CPU as one figure (its whole process group). */
interface Measured extends Omit<Phase, 'cpu'> {
  round: number;
  server: string;
  mode: Mode;
  cpu: number;
  modelMs: number;
  maxInFlight: number;
}

/** CLIENTS clients, each making `perClient` calls back to back. */
async function load(server: Server, model: FakeModel, mode: Mode, perClient: number, round: number): Promise<Measured> {
  await model.reset();
  const restBefore = { client: cpuMs(process.pid), model: cpuMs(model.child.pid!) };
  const before = group(server.pgrp);
  const rss = watchGroupRss(server.pgrp);
  const latency: number[] = [];
  const first: number[] = [];
  const why = new Map<string, number>();
  let done = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      for (let n = 0; n < perClient; n++) {
        const start = performance.now();
        let r: { ok: boolean; why?: string; first?: number };
        try {
          r = await server.once(i, n, mode);
        } catch (err) {
          r = { ok: false, why: err instanceof Error ? `${err.name}: ${err.message.slice(0, 80)}` : String(err) };
        }
        latency.push(performance.now() - start);
        if (r.first !== undefined) first.push(r.first);
        if (r.ok) done++;
        else {
          failed++;
          why.set(r.why ?? '?', (why.get(r.why ?? '?') ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = groupUsed(before, group(server.pgrp));
  const rest = { client: cpuMs(process.pid) - restBefore.client, model: cpuMs(model.child.pid!) - restBefore.model };
  const stats = await model.stats();
  return { round, server: server.name, mode, done, failed, why, seconds, latency, first, cpu, rest, rss: rss(), modelMs: percentile(stats.times, 50), maxInFlight: stats.maxInFlight };
}

const ms = (x: number) => (Number.isNaN(x) ? '–' : x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'));
const rate = (m: Measured) => m.done / m.seconds;
const cpuPerRun = (m: Measured) => m.cpu / Math.max(m.done, 1);

function setupLine(loadAtStart: number[]): string {
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
  const storage = MASTRA_DB === 'file' ? 'LibSQLStore on a SQLite file (temp dir)' : 'LibSQLStore :memory: (in-memory SQLite)';
  return [
    `commit ${commit}, node ${process.version}, ${cpu}, ${os.availableParallelism()} cores, loadavg at start ${loadAtStart.map((x) => x.toFixed(2)).join(' ')}`,
    `${CLIENTS} clients × ${PER_CLIENT} runs back to back (${CLIENTS * PER_CLIENT} runs per row) after ${CLIENTS * WARMUP_PER_CLIENT} warm-up runs; model: ${pace}`,
    `Mastra ${mastraVersion()} (@mastra/hono's MastraServer on @hono/node-server; @ai-sdk/openai-compatible; @mastra/memory, ${storage}, a new thread per run)`,
    `this service: one embedded process (PGlite inside, its own workers, npm start's node flags)`,
    `sharing the cores: the load generator (this process), the fake model (its own process), the one server being measured (the other is not running), an idle PostgreSQL`,
  ].join('\n');
}

export async function benchPeers(setup: ExecutionsSetup): Promise<void> {
  ensureInstalled();
  const loadAtStart = os.loadavg();
  const model = await startFakeModel();
  // A hosted model answers a non-streamed request after the time it takes to stream it: the first
  // token's wait plus 39 more tokens' (the 40-token answer), then all of it at once.
  const wholeMs = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 30) + 39 * Number(process.env.BENCH_TOKEN_MS ?? 30);
  const whole = await startFakeModel({ ...process.env, BENCH_FIRST_TOKEN_MS: String(wholeMs) });
  const results: Measured[] = [];
  const starters: [string, (dataDir: string) => Promise<Server>][] = [
    ['mastra', (dataDir) => startMastra(model.url, whole.url, dataDir)],
    ['ours', () => startOurs(setup, model.url)],
  ];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (let k = 0; k < starters.length; k++) {
        const [, start] = starters[(k + round - 1) % starters.length]!;
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-peers-'));
        const server = await start(dataDir);
        try {
          for (const mode of MODES) {
            const fake = mode === 'wait' && server.wholeForWait ? whole : model;
            await load(server, fake, mode, WARMUP_PER_CLIENT, round);
            await sleep(1000);
            const m = await load(server, fake, mode, PER_CLIENT, round);
            results.push(m);
            console.log(`peers round ${round}: ${m.server} ${mode}: ${rate(m).toFixed(1)} runs/s, p50 ${ms(percentile(m.latency, 50))} ms, CPU ${cpuPerRun(m).toFixed(1)} ms/run, RSS ${m.rss.toFixed(0)} MB, failed ${m.failed}`);
            await sleep(1000);
          }
        } finally {
          await server.stop();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    model.child.disconnect();
    whole.child.disconnect();
  }

  console.log(`\nPeers in the same run (BENCH_PARTS=peers)\n${setupLine(loadAtStart)}`);
  const row = (m: Measured) => ({
    round: m.round,
    server: m.server,
    mode: m.mode === 'wait' ? (m.server.startsWith('Mastra') ? 'generate' : 'wait: true') : m.server.startsWith('Mastra') ? 'stream' : 'stream: true',
    'runs/s': rate(m).toFixed(1),
    'p50 / p99 ms': `${ms(percentile(m.latency, 50))} / ${ms(percentile(m.latency, 99))}`,
    'first token p50 ms': m.first.length ? ms(percentile(m.first, 50)) : '',
    'CPU ms/run': cpuPerRun(m).toFixed(1),
    'CPU ms/run clients + model': `${(m.rest.client / Math.max(m.done, 1)).toFixed(1)} + ${(m.rest.model / Math.max(m.done, 1)).toFixed(1)}`,
    'peak RSS MB': m.rss.toFixed(0),
    'model p50 ms / max at once': `${ms(m.modelMs)} / ${m.maxInFlight}`,
    failed: m.failed === 0 ? '0' : `${m.failed} (${[...m.why].map(([k, n]) => `${k}: ${n}`).join(', ')})`,
  });
  console.table(results.map(row));
  // Ours against Mastra's same mode in the same round; the median when there are several rounds.
  const ratios = MODES.map((mode) => {
    const pairs = range1(ROUNDS).map((round) => {
      const pick = (mastra: boolean) => results.find((m) => m.round === round && m.mode === mode && m.server.startsWith('Mastra') === mastra);
      return [pick(true), pick(false)] as const;
    });
    const ok = pairs.filter((p): p is readonly [Measured, Measured] => !!p[0] && !!p[1]);
    const tput = ok.map(([m, o]) => rate(o) / rate(m));
    const cpu = ok.map(([m, o]) => cpuPerRun(o) / cpuPerRun(m));
    return {
      comparison: mode === 'wait' ? 'ours wait: true ÷ Mastra generate' : 'ours stream: true ÷ Mastra stream',
      'runs/s ratio': tput.length ? `${median(tput).toFixed(2)}×${tput.length > 1 ? ` (${tput.map((x) => x.toFixed(2)).join(', ')})` : ''}` : '–',
      'CPU per run ratio': cpu.length ? `${median(cpu).toFixed(2)}×${cpu.length > 1 ? ` (${cpu.map((x) => x.toFixed(2)).join(', ')})` : ''}` : '–',
    };
  });
  console.table(ratios);
  console.log('runs/s ratio > 1: ours faster; CPU per run ratio < 1: ours cheaper. Target (issue 27): ours ≥ 1.3× Mastra\'s generate.');
}

const range1 = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
