// The traces part of `npm run bench` (docs/benchmark.md, "Traces"): what recording a run's trace
// costs, at a hosted model's pace, and exporting it. Three embedded app processes (PGlite: each
// one's database CPU is its own), the same but for TRACES=off, TRACES=on, and TRACES=on exporting
// over OTLP/HTTP (protobuf) to a collector in this bench process that takes and acknowledges
// every request; the hosted-pace fake model in a process of its own (40 tokens over ~1.2 s:
// scripts/bench/fake-model.ts). Neither is counted.
// BENCH_TRACES_ROUNDS (5) rounds; in each, each app in turn (the order rotating) serves
// BENCH_TRACES_CLIENTS (50) clients running `wait: true` executions (one model call each: the
// root, the queue's and the call's spans) back to back for BENCH_TRACES_SECONDS (10), while
// the others idle. CPU per run = the serving process's CPU over its phase ÷ runs done (its threads'
// time on a CPU, /proc schedstat). Medians of the rounds, and of the round-by-round differences.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpuPreciseMs } from './cpu';
import type { ExecutionsSetup } from './executions';
import { call, clientAgent, startApp, startFakeModel, type App, type Client } from './hosted';
import { median, stopAll } from './util';

const ROUNDS = Number(process.env.BENCH_TRACES_ROUNDS ?? 5);
const CLIENTS = Number(process.env.BENCH_TRACES_CLIENTS ?? 50);
const SECONDS = Number(process.env.BENCH_TRACES_SECONDS ?? 10);

type Arm = 'off' | 'on' | 'export';
const ARMS: Arm[] = ['off', 'on', 'export'];

interface Served {
  runs: number;
  failed: number;
  cpu: number;
}

/** CLIENTS clients running wait executions back to back on `app` for `seconds`: runs done and the app's CPU. */
async function serve(app: App, agentId: string, seconds: number): Promise<Served> {
  const agent = clientAgent();
  const pid = app.pids[0]!;
  const cpu0 = cpuPreciseMs(pid);
  const until = performance.now() + seconds * 1000;
  let runs = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const c: Client = { agent, origin: app.origin, key: app.keys[i % app.keys.length]! };
      for (let n = 0; performance.now() < until; n++) {
        const res = await call<{ status: string }>(c, 'POST', `/v1/agents/${agentId}/execute`, { input: `Hello from client ${i}, run ${n}`, wait: true }).catch(() => null);
        if (res?.status === 200 && res.body.status === 'succeeded') runs++;
        else failed++;
      }
    }),
  );
  // The last runs' finishes are written; their CPU belongs to this phase.
  await new Promise((r) => setTimeout(r, 500));
  const cpu = cpuPreciseMs(pid) - cpu0;
  await agent.close();
  return { runs, failed, cpu };
}

export async function benchTraces(setup: ExecutionsSetup): Promise<void> {
  console.log('\nTraces (the hosted-pace fake model runs in a process of its own, not counted; each app’s own CPU while it serves):');
  const model = await startFakeModel();
  // The collector: reads each request whole and answers 200 (an empty ExportTraceServiceResponse).
  const received = { requests: 0, bytes: 0 };
  const collector = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (received.bytes += c.length));
    req.on('end', () => {
      received.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const apps: Partial<Record<Arm, App>> = {};
  try {
    for (const arm of ARMS) {
      const env = arm === 'export' ? { TRACES: 'on', OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl } : { TRACES: arm };
      apps[arm] = await startApp('pglite', { ...setup, env: { ...setup.env, ...env } }, model.url, { clients: CLIENTS });
    }
    const agents = {} as Record<Arm, string>;
    for (const arm of ARMS) {
      const c: Client = { agent: clientAgent(), origin: apps[arm]!.origin, key: apps[arm]!.key };
      agents[arm] = (await call<{ id: string }>(c, 'POST', '/v1/agents', { name: `traces ${arm}`, model: 'openai-compatible/hosted', instructions: 'Answer briefly.' }, 201)).body.id;
      await c.agent.close();
      await serve(apps[arm]!, agents[arm], 3); // warm-up: JIT, pools
    }
    const rounds: Record<Arm, Served>[] = [];
    const exported = { requests: received.requests, bytes: received.bytes, seconds: 0, runs: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      const round = {} as Record<Arm, Served>;
      for (let j = 0; j < ARMS.length; j++) {
        const arm = ARMS[(r + j) % ARMS.length]!;
        const t0 = performance.now();
        round[arm] = await serve(apps[arm]!, agents[arm], SECONDS);
        if (arm === 'export') {
          exported.seconds += (performance.now() - t0) / 1000;
          exported.runs += round[arm].runs;
        }
      }
      rounds.push(round);
    }
    const perRun = (s: Served) => s.cpu / Math.max(1, s.runs);
    const f = (x: number) => x.toFixed(2);
    const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
    const d = rounds.map((r) => perRun(r.on) - perRun(r.off));
    const e = rounds.map((r) => perRun(r.export) - perRun(r.on));
    const runs = (arm: Arm) => median(rounds.map((r) => r[arm].runs / SECONDS));
    const failed = rounds.reduce((n, r) => n + r.on.failed + r.off.failed + r.export.failed, 0);
    console.log(`  ${ROUNDS} rounds × ${SECONDS} s per arm, ${CLIENTS} clients, wait runs of one model call (3 spans):`);
    console.log(
      `    CPU per run: traces off ${f(median(rounds.map((r) => perRun(r.off))))} ms, on ${f(median(rounds.map((r) => perRun(r.on))))} ms, on and exported ${f(median(rounds.map((r) => perRun(r.export))))} ms (embedded: the database's CPU included)`,
    );
    console.log(`    recording and writing the spans: ${signed(median(d))} ms per run (rounds ${d.map(signed).join(', ')}); target ≤ +0.5 ms`);
    console.log(`    exporting them too: ${signed(median(e))} ms per run more (rounds ${e.map(signed).join(', ')}); target ≤ +0.5 ms`);
    const requests = received.requests - exported.requests;
    console.log(
      `    exported: ${f((exported.runs * 3) / exported.seconds)} spans/s in ${requests} requests (${f((received.bytes - exported.bytes) / Math.max(1, requests) / 1024)} KB each), as fast as the runs make them`,
    );
    console.log(`    runs/s: off ${f(runs('off'))}, on ${f(runs('on'))}, exported ${f(runs('export'))}${failed ? `; ${failed} runs failed` : ''}`);
  } finally {
    await stopAll(Object.values(apps).flatMap((a) => a!.children));
    for (const app of Object.values(apps)) if (app?.dataDir) fs.rmSync(app.dataDir, { recursive: true, force: true });
    model.child.disconnect();
    collector.close();
  }
}
