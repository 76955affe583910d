// The budgets part of `npm run bench` (docs/benchmark.md, "Budgets"):
//   - cost: one embedded app process (PGlite: the database's CPU is the process's own), a fake
//     OpenAI-compatible model in this bench process (~1 ms, not counted). Three arms: an agent of
//     a workspace with no budget, an agent no budget counts beside budgeted ones, and one with
//     three in force (a `block` token budget, a `block` USD budget and a `notify` USD budget,
//     limits never reached). BENCH_BUDGET_ROUNDS (5) rounds of BENCH_BUDGET_RUNS (200) sequential
//     `wait: true` runs per arm, the arms taking turns run by run; each run's CPU is the app
//     process's threads' time on a CPU (/proc schedstat, ns). Medians of the rounds.
//   - exactness: PostgreSQL, 2 web + 2 worker processes, a fake model at 100 ms and a tool server
//     (both in this process); BENCH_BUDGET_RACE (50) runs of an agent making 4 model calls (3
//     tool calls) started at once across both web processes against a `block` token budget they
//     pass (BENCH_BUDGET_RACE=0 skips it). Reports the ledger's `spent` against the runs' own tokens, and against the
//     limit (each call reserves its worst case first: docs/budgets.md, "Reservations").
import type { ChildProcess } from 'node:child_process';
import { startFakeOpenAI } from '../../test/fakes/openai';
import { startToolServer } from '../../test/fakes/tool-server';
import { cpuPreciseMs } from './cpu';
import type { ExecutionsSetup } from './executions';
import { call, clientAgent, cli, startApp, type Client } from './hosted';
import { freePorts, median, percentile, sleep, spawnService, stopAll, waitFor } from './util';

const ROUNDS = Number(process.env.BENCH_BUDGET_ROUNDS ?? 5);
const RUNS = Number(process.env.BENCH_BUDGET_RUNS ?? 200);
const RACE = Number(process.env.BENCH_BUDGET_RACE ?? 50);
const PRICED = 'openai-compatible/fake-1';
const PRICES = JSON.stringify({ [PRICED]: { input: 2.5, output: 10 } });

interface Execution {
  id: string;
  status: string;
  error: { code: string } | null;
  usage: { totalTokens: number };
  steps: { usage: { totalTokens: number } }[];
}

const budget = (c: Client, body: Record<string, unknown>) => call(c, 'POST', '/v1/budgets', { name: 'bench', period: 'day', ...body }, 201);

type Arm = 'bare' | 'plain' | 'capped';
const ARMS: Arm[] = ['bare', 'plain', 'capped'];

async function cost(setup: ExecutionsSetup): Promise<void> {
  const fake = await startFakeOpenAI({ record: false });
  const app = await startApp('pglite', { ...setup, env: { ...setup.env, MODEL_PRICES: PRICES } }, fake.url, { clients: 1, otherWorkspaces: 1 });
  const c: Client = { agent: clientAgent(), origin: app.origin, key: app.key };
  const other: Client = { ...c, key: app.others[0]! };
  try {
    const agents: Record<Arm, { client: Client; id: string }> = {
      bare: { client: other, id: (await call<{ id: string }>(other, 'POST', '/v1/agents', { name: 'bare', model: PRICED }, 201)).body.id },
      plain: { client: c, id: (await call<{ id: string }>(c, 'POST', '/v1/agents', { name: 'plain', model: PRICED }, 201)).body.id },
      capped: { client: c, id: (await call<{ id: string }>(c, 'POST', '/v1/agents', { name: 'capped', model: PRICED }, 201)).body.id },
    };
    const target = { type: 'agent', id: agents.capped.id };
    await budget(c, { target, limit: { tokens: 1_000_000_000 }, action: 'block' });
    await budget(c, { target, limit: { usd: '1000000' }, action: 'block', period: 'month', timezone: 'America/Santiago' });
    await budget(c, { target, limit: { usd: '1000000' }, action: 'notify', period: 'week', timezone: 'Asia/Kolkata' });
    const pid = app.pids[0]!;
    /** One wait run of an arm's agent: the app process's CPU it used (its threads', ns-precise) and its latency. */
    const once = async (arm: Arm, i: number) => {
      const { client, id } = agents[arm];
      const cpu0 = cpuPreciseMs(pid);
      const t0 = performance.now();
      const e = await call<Execution>(client, 'POST', `/v1/agents/${id}/execute`, { input: `What is the status of order ${i}?`, wait: true }, 200);
      const lat = performance.now() - t0;
      if (e.body.status !== 'succeeded') throw new Error(`a run ended ${e.body.status}: ${JSON.stringify(e.body.error)}`);
      return { cpu: cpuPreciseMs(pid) - cpu0, lat };
    };
    for (let i = 0; i < 30; i++) for (const arm of ARMS) await once(arm, i); // warm-up: JIT, pools
    // The arms take turns run by run (the order rotating), so a garbage collection or a drift of
    // the machine falls on all alike; each run's CPU is read from the scheduler's counters.
    const rounds: Record<Arm, { cpu: number; p50: number }>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const acc = Object.fromEntries(ARMS.map((a) => [a, { cpu: 0, lat: [] as number[] }])) as Record<Arm, { cpu: number; lat: number[] }>;
      for (let i = 0; i < RUNS; i++) {
        for (let j = 0; j < ARMS.length; j++) {
          const arm = ARMS[(i + r + j) % ARMS.length]!;
          const got = await once(arm, i);
          acc[arm].cpu += got.cpu;
          acc[arm].lat.push(got.lat);
        }
      }
      rounds.push(Object.fromEntries(ARMS.map((a) => [a, { cpu: acc[a].cpu / RUNS, p50: percentile(acc[a].lat, 50) }])) as Record<Arm, { cpu: number; p50: number }>);
    }
    const f = (x: number) => x.toFixed(2);
    const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
    const m = (arm: Arm, k: 'cpu' | 'p50') => f(median(rounds.map((r) => r[arm][k])));
    const delta = (a: Arm, b: Arm, k: 'cpu' | 'p50') => {
      const d = rounds.map((r) => r[a][k] - r[b][k]);
      return `${signed(median(d))} ms (rounds ${d.map(signed).join(', ')})`;
    };
    console.log(`  cost (embedded, 1 process, ${ROUNDS} rounds × ${RUNS} wait runs per arm, medians of the rounds):`);
    console.log(`    CPU per run: ${m('bare', 'cpu')} ms in a workspace with no budget, ${m('plain', 'cpu')} ms for an agent no budget counts beside budgeted ones, ${m('capped', 'cpu')} ms with 3 in force`);
    console.log(`    wait p50:    ${m('bare', 'p50')} ms, ${m('plain', 'p50')} ms, ${m('capped', 'p50')} ms`);
    console.log(`    3 in force vs no budget: CPU ${delta('capped', 'bare', 'cpu')}; wait p50 ${delta('capped', 'bare', 'p50')}`);
    console.log(`    uncounted agent vs no budget: CPU ${delta('plain', 'bare', 'cpu')}; wait p50 ${delta('plain', 'bare', 'p50')}`);
  } finally {
    await c.agent.close();
    await stopAll(app.children);
    await fake.close();
  }
}

async function exactness(setup: ExecutionsSetup): Promise<void> {
  const fake = await startFakeOpenAI({ record: false, latencyMs: 100 });
  const tools = await startToolServer();
  const ports = await freePorts(2);
  const env = { ...setup.env, REDIS_URL: setup.redisUrl, OPENAI_COMPATIBLE_BASE_URL: fake.url, MODEL_PRICES: PRICES, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
  const children: ChildProcess[] = [];
  try {
    const webs = ports.map((port) => spawnService('main', { ...env, PORT: String(port), RUN_WORKERS: 'false' }));
    children.push(...webs, spawnService('worker', env), spawnService('worker', env));
    for (const [i, web] of webs.entries()) await waitFor(`http://127.0.0.1:${ports[i]}/readyz`, web);
    await sleep(2_000); // the workers' boot
    const email = `budgets-${Math.random().toString(36).slice(2)}@example.com`;
    await cli(env, ['create-user', '--email', email, '--password', 'bench-password']);
    await cli(env, ['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', '1000']);
    const key = await cli(env, ['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'budgets']);
    const clients: Client[] = ports.map((port) => ({ agent: clientAgent(), origin: `http://127.0.0.1:${port}`, key }));
    const c = clients[0]!;
    const tool = (name: string) => ({ type: 'http', name, description: `The ${name} tool`, url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } });
    const agent = (await call<{ id: string }>(c, 'POST', '/v1/agents', { name: 'racer', model: PRICED, maxSteps: 10, tools: [tool('lookup'), tool('search'), tool('fetch')] }, 201)).body.id;
    const LIMIT = 20_000;
    const b = (await budget(c, { target: { type: 'workspace' }, limit: { tokens: LIMIT }, action: 'block' })).body as { id: string };
    const started = await Promise.all(
      Array.from({ length: RACE }, (_, i) => call<Execution>(clients[i % 2]!, 'POST', `/v1/agents/${agent}/execute`, { input: `lookup and search and fetch order ${i}` }, 202)),
    );
    const done: Execution[] = [];
    for (const s of started) {
      for (;;) {
        const e = (await call<Execution>(c, 'GET', `/v1/executions/${s.body.id}`, undefined, 200)).body;
        if (['succeeded', 'failed', 'cancelled'].includes(e.status)) {
          done.push(e);
          break;
        }
        await sleep(50);
      }
    }
    const spent = (await call<{ spent: { tokens: number } }>(c, 'GET', `/v1/budgets/${b.id}`, undefined, 200)).body.spent.tokens;
    const total = done.reduce((n, e) => n + e.usage.totalTokens, 0);
    const stopped = done.filter((e) => e.error?.code === 'budget_exceeded').length;
    const other = done.filter((e) => e.status !== 'succeeded' && e.error?.code !== 'budget_exceeded').length;
    console.log(
      `  exactness (PostgreSQL, 2 web + 2 workers, ${RACE} runs of 4 model calls at 100 ms, limit ${LIMIT} tokens): ledger ${spent} tokens, runs' own ${total} ` +
        `(${spent === total ? 'exact' : `off by ${spent - total}`}); ${(spent / LIMIT).toFixed(3)}× the limit (reservations: within it but for the prompts' estimate; target ≤ 1.5×: ${spent <= LIMIT * 1.5 ? 'yes' : 'NO'}); ` +
        `${stopped} runs stopped by the budget, ${RACE - stopped - other} finished${other ? `, ${other} failed otherwise` : ''}`,
    );
    await Promise.all(clients.map((cl) => cl.agent.close()));
  } finally {
    await stopAll(children);
    await fake.close();
    await tools.close();
  }
}

export async function benchBudgets(setup: ExecutionsSetup): Promise<void> {
  console.log('\nBudgets (the fake model and the tool server run in this bench process; only the app processes’ CPU is counted):');
  await cost(setup);
  if (RACE > 0) await exactness(setup);
}
