// The approvals part of `npm run bench` (docs/benchmark.md, "Approvals"), on PostgreSQL, in two
// topologies: one process (web and workers), and 1 web + 1 worker.
//   - latency: BENCH_APPROVALS (50) runs paused on an HTTP tool with `approval: "always"` (the
//     sandbox model calls it), then approved one at a time; for each, from the approval's answer
//     arriving at the client to the tool's request arriving at a local receiver (same machine,
//     its own process: this one). p50 and p95.
//   - holding: BENCH_PAUSED (1,000) runs paused in one workspace whose concurrency is 5, then as
//     many again; the RSS of each process before and after the second 1,000 (the first grow the
//     heaps to their working size), what 1,000 paused runs hold; then 5 runs of
//     `sandbox/slow` started at once: all 5 must be running together (the paused ones hold no
//     slot).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, cli, clientAgent, type Client } from './hosted';
import { freePorts, heapAfterGcMb, median, percentile, rssMb, sleep, spawnService, stopAll, waitFor } from './util';

const RUNS = Number(process.env.BENCH_APPROVALS ?? 50);
const PAUSED = Number(process.env.BENCH_PAUSED ?? 1000);

export interface ApprovalsSetup {
  env: NodeJS.ProcessEnv;
  redisUrl: string;
}

interface Execution {
  id: string;
  status: string;
  requiredAction: { toolCalls: { id: string }[] } | null;
}

/** A tool endpoint: when each call (by its Idempotency-Key) arrived. */
async function startReceiver() {
  const arrived = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const key = String(req.headers['idempotency-key'] ?? '');
    arrived.set(key, performance.now());
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/refund`, arrived, close: () => new Promise((r) => server.close(r)) };
}

async function tenant(env: NodeJS.ProcessEnv, origin: string, name: string, concurrency: number): Promise<Client> {
  const email = `${name}-${Math.random().toString(36).slice(2)}@example.com`;
  await cli(env, ['create-user', '--email', email, '--password', 'bench-password']);
  await cli(env, ['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', String(concurrency)]);
  return { agent: clientAgent(), origin, key: await cli(env, ['create-key', '--email', email, '--env', 'test', '--scopes', 'all', '--name', name]) };
}

const refundAgent = (c: Client, url: string) =>
  call<{ id: string }>(c, 'POST', '/v1/agents', {
    name: 'Refunds',
    tools: [{ type: 'http', name: 'refund', description: 'Refunds an order', url, parameters: { type: 'object', properties: { query: { type: 'string' } } }, approval: 'always' }],
  }, 201);

/** `n` runs paused on their refund call (created 20 at a time); their ids and call ids. */
async function pauseRuns(c: Client, agentId: string, n: number): Promise<{ id: string; callId: string }[]> {
  const out: { id: string; callId: string }[] = [];
  for (let i = 0; i < n; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, j) => call<Execution>(c, 'POST', `/v1/agents/${agentId}/execute`, { input: `please refund order ${i + j}`, wait: true }, 200)),
    );
    for (const { body } of batch) {
      if (body.status !== 'requires_action') throw new Error(`a run ended ${body.status}, not paused`);
      out.push({ id: body.id, callId: body.requiredAction!.toolCalls[0]!.id });
    }
  }
  return out;
}

async function topology(name: string, setup: ApprovalsSetup, split: boolean) {
  const [port, ...inspect] = (await freePorts(3)) as [number, number, number];
  const origin = `http://127.0.0.1:${port}`;
  const env = { ...setup.env, REDIS_URL: setup.redisUrl, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
  // The inspector's port of each process (opened only to read its heap after a GC: heapAfterGcMb).
  const web = spawnService('main', { ...env, PORT: String(port), RUN_WORKERS: split ? 'false' : 'true', NODE_OPTIONS: `--inspect-port=${inspect[0]}` });
  const children = [web, ...(split ? [spawnService('worker', { ...env, NODE_OPTIONS: `--inspect-port=${inspect[1]}` })] : [])];
  const receiver = await startReceiver();
  try {
    await waitFor(`${origin}/readyz`, web);
    if (split) await sleep(2_000); // the worker's boot
    const c = await tenant(env, origin, `approvals-${name.replace(/\W+/g, '-')}`, 10_000);
    const agent = await refundAgent(c, receiver.url);
    // Warm-up: a few pause-approve cycles (JIT, pools).
    for (const r of await pauseRuns(c, agent.body.id, 5)) {
      await call(c, 'POST', `/v1/executions/${r.id}/approvals`, { decisions: [{ toolCallId: r.callId, approve: true }], wait: true }, 200);
    }
    const runs = await pauseRuns(c, agent.body.id, RUNS);
    const lat: number[] = [];
    for (const r of runs) {
      await call(c, 'POST', `/v1/executions/${r.id}/approvals`, { decisions: [{ toolCallId: r.callId, approve: true }] }, 200);
      const answered = performance.now();
      for (let t = 0; t < 2_000 && !receiver.arrived.has(r.callId); t++) await sleep(1);
      const at = receiver.arrived.get(r.callId);
      if (at === undefined) throw new Error(`the approved call of ${r.id} never reached the tool`);
      lat.push(at - answered);
    }
    const p = (x: number) => x.toFixed(1);
    console.log(`  ${name}: decision answered → tool request arrived, ${RUNS} runs one at a time: p50 ${p(median(lat))} ms, p95 ${p(percentile(lat, 95))} ms, max ${p(Math.max(...lat))} ms`);

    // Holding: 1,000 paused runs in a workspace of concurrency 5, then 5 slow runs at once.
    const held = await tenant(env, origin, `held-${name.replace(/\W+/g, '-')}`, 5);
    const heldAgent = await refundAgent(held, receiver.url);
    const pids = children.map((ch) => ch.pid!);
    // A first 1,000 grow the heaps to their working size (the work of running them, not what
    // they hold); the second 1,000's growth is what paused runs hold.
    await pauseRuns(held, heldAgent.body.id, PAUSED);
    await sleep(3_000);
    const measure = async () => Promise.all(pids.map(async (pid, i) => ({ rss: rssMb(pid), heap: await heapAfterGcMb(pid, inspect[i]!) })));
    const before = await measure();
    await pauseRuns(held, heldAgent.body.id, PAUSED);
    await sleep(3_000);
    const after = await measure();
    const slow = await call<{ id: string }>(held, 'POST', '/v1/agents', { name: 'Slow', model: 'sandbox/slow' }, 201);
    const started = await Promise.all(Array.from({ length: 5 }, (_, i) => call<Execution>(held, 'POST', `/v1/agents/${slow.body.id}/execute`, { input: `slow ${i}` }, 202)));
    let running = 0;
    for (let t = 0; t < 100 && running < 5; t++) {
      await sleep(50);
      const states = await Promise.all(started.map((s) => call<Execution>(held, 'GET', `/v1/executions/${s.body.id}`, undefined, 200)));
      running = Math.max(running, states.filter((s) => s.body.status === 'running').length);
    }
    const grew = (a: number, b: number) => `${a.toFixed(1)} → ${b.toFixed(1)} MB (${b - a >= 0 ? '+' : ''}${(b - a).toFixed(1)})`;
    const holding = pids.map((_, i) => `${split ? ['web', 'worker'][i] : 'process'}: heap after GC ${grew(before[i]!.heap, after[i]!.heap)}, RSS ${grew(before[i]!.rss, after[i]!.rss)}`).join('; ');
    console.log(`  ${name}: ${PAUSED} more runs paused (after ${PAUSED} already): ${holding}`);
    console.log(`  ${name}: 5 runs started at once in that workspace (concurrency 5, ${2 * PAUSED} paused): ${running} running together`);
  } finally {
    await receiver.close();
    await stopAll(children);
  }
}

export async function benchApprovals(setup: ApprovalsSetup): Promise<void> {
  console.log('\nApprovals (PostgreSQL; the tool receiver is this bench process; sandbox model):');
  await topology('1 process', setup, false);
  await topology('1 web + 1 worker', setup, true);
}
