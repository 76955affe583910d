// The evals part of `npm run bench` (docs/benchmark.md, "Evals"), at a hosted model's pace: the
// fake model (40 tokens over ~1.2 s, scripts/bench/fake-model.ts) in a process of its own, not
// counted. Embedded app processes (PGlite: each one's database CPU is its own).
//   1. An experiment against plain executions: BENCH_EVALS_ITEMS (200) items at concurrency 20
//      (one `contains` scorer), from the POST to `succeeded`, against the same number of plain
//      `wait` executions by 20 clients back to back, from the first request to the last answer;
//      the two alternate on one app, BENCH_EVALS_ROUNDS (3) rounds. Target: the experiment within
//      1.2× the plain runs' time.
//   2. What online scoring at `sampleRate: 1` costs a run: three fresh apps, one whose agent has
//      no rule, one whose agent has a rule (a `contains` and a `regex` scorer, no judge) but which
//      leaves the scoring to other workers (ONLINE_SCORING=off: what the run itself pays, its
//      sampling), and one that also scores. In each round each in turn (the order rotating)
//      serves 50 clients running `wait` executions back to back for BENCH_EVALS_SECONDS (10)
//      while the others idle. CPU per run = the serving process's CPU (its threads' time on a
//      CPU, /proc schedstat) over the phase — and, for the scoring one, until its runs are
//      scored — ÷ runs. Target: the run itself ≤ +1 ms.
import fs from 'node:fs';
import { cpuPreciseMs } from './cpu';
import type { ExecutionsSetup } from './executions';
import { call, clientAgent, startApp, startFakeModel, type App, type Client } from './hosted';
import { median, sleep, stopAll } from './util';

const ITEMS = Number(process.env.BENCH_EVALS_ITEMS ?? 200);
const CONCURRENCY = 20;
const ROUNDS = Number(process.env.BENCH_EVALS_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_EVALS_SECONDS ?? 10);
const CLIENTS = 50;
/** Which of the two to run: `experiment`, `online` (default both). */
const STEPS = (process.env.BENCH_EVALS_STEPS ?? 'experiment,online').split(',');

const client = (app: App): Client => ({ agent: clientAgent(), origin: app.origin, key: app.key });

/** ITEMS plain `wait` executions by CONCURRENCY clients back to back: seconds from the first request to the last answer. */
async function plain(app: App, agentId: string): Promise<number> {
  const c = client(app);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ITEMS) {
        const n = next++;
        const res = await call<{ status: string }>(c, 'POST', `/v1/agents/${agentId}/execute`, { input: `Question ${n}: where is order ${1000 + n}?`, wait: true });
        if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`a plain run answered ${res.status} ${res.body.status}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await c.agent.close();
  return seconds;
}

/** An experiment of the dataset at CONCURRENCY: seconds from the POST to `succeeded`. */
async function experiment(app: App, agentId: string, datasetId: string): Promise<number> {
  const c = client(app);
  const t0 = performance.now();
  const made = await call<{ id: string }>(c, 'POST', '/v1/experiments', { agentId, datasetId, concurrency: CONCURRENCY, scorers: [{ type: 'contains', value: 'order' }] }, 201);
  for (;;) {
    await sleep(20);
    const now = await call<{ status: string; progress: { done: number } }>(c, 'GET', `/v1/experiments/${made.body.id}`);
    if (now.body.status === 'succeeded') break;
    if (now.body.status !== 'running' && now.body.status !== 'queued') throw new Error(`the experiment ended ${now.body.status}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  await c.agent.close();
  return seconds;
}

/** CLIENTS clients running wait executions back to back for SECONDS, then the scoring of what they sampled: runs, and the app's CPU. */
async function serve(app: App, agentId: string, scored: () => Promise<boolean>): Promise<{ runs: number; cpu: number }> {
  const agent = clientAgent();
  const cpu0 = cpuPreciseMs(app.pids[0]!);
  const until = performance.now() + SECONDS * 1000;
  let runs = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const c: Client = { agent, origin: app.origin, key: app.keys[i % app.keys.length]! };
      for (let n = 0; performance.now() < until; n++) {
        const res = await call<{ status: string }>(c, 'POST', `/v1/agents/${agentId}/execute`, { input: `Hello from client ${i}, run ${n}: my order`, wait: true }).catch(() => null);
        if (res?.status === 200 && res.body.status === 'succeeded') runs++;
      }
    }),
  );
  // The scoring of this phase's runs belongs to it: wait until every sampled run is scored.
  for (let t = 0; t < 300 && !(await scored()); t++) await sleep(100);
  await sleep(300);
  const cpu = cpuPreciseMs(app.pids[0]!) - cpu0;
  await agent.close();
  return { runs, cpu };
}

/** Part 1: the experiment against the same number of plain runs, round by round. */
async function experimentAgainstPlain(setup: ExecutionsSetup, modelUrl: string, apps: App[]): Promise<void> {
    const app = await startApp('pglite', setup, modelUrl, { clients: CONCURRENCY });
    apps.push(app);
    const c = client(app);
    const agentId = (await call<{ id: string }>(c, 'POST', '/v1/agents', { name: 'evals', model: 'openai-compatible/hosted', instructions: 'Answer briefly.' }, 201)).body.id;
    const datasetId = (await call<{ id: string }>(c, 'POST', '/v1/datasets', { name: 'bench' }, 201)).body.id;
    for (let n = 0; n < ITEMS; n++) await call(c, 'POST', `/v1/datasets/${datasetId}/items`, { input: `Question ${n}: where is order ${1000 + n}?`, expected: 'order' }, 201);
    await c.agent.close();
    await plain(app, agentId); // warm-up: JIT, pools
    const times: { plain: number; experiment: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round = { plain: 0, experiment: 0 };
      if (r % 2 === 0) {
        round.plain = await plain(app, agentId);
        round.experiment = await experiment(app, agentId, datasetId);
      } else {
        round.experiment = await experiment(app, agentId, datasetId);
        round.plain = await plain(app, agentId);
      }
      times.push(round);
    }
    const f = (x: number) => x.toFixed(2);
    const ratios = times.map((t) => t.experiment / t.plain);
    console.log(`  ${ITEMS} items at concurrency ${CONCURRENCY}, ${ROUNDS} rounds (order alternating):`);
    console.log(`    plain wait runs ${f(median(times.map((t) => t.plain)))} s, the experiment ${f(median(times.map((t) => t.experiment)))} s: ${f(median(ratios))}× (rounds ${ratios.map(f).join(', ')}); target ≤ 1.2×`);

}

export async function benchEvals(setup: ExecutionsSetup): Promise<void> {
  console.log('\nEvals (the hosted-pace fake model runs in a process of its own, not counted; embedded apps):');
  const model = await startFakeModel();
  const apps: App[] = [];
  try {
    // 1. An experiment against the same number of plain runs.
    if (STEPS.includes('experiment')) await experimentAgainstPlain(setup, model.url, apps);
    if (!STEPS.includes('online')) return;

    // 2. Online scoring at sampleRate 1 against none: three apps, the third sampling but not scoring (ONLINE_SCORING=off).
    const arms = {
      none: { app: await startApp('pglite', setup, model.url, { clients: CLIENTS }), agentId: '', rule: false },
      sampled: { app: await startApp('pglite', { ...setup, env: { ...setup.env, ONLINE_SCORING: 'off' } }, model.url, { clients: CLIENTS }), agentId: '', rule: true },
      scored: { app: await startApp('pglite', setup, model.url, { clients: CLIENTS }), agentId: '', rule: true },
    };
    apps.push(arms.none.app, arms.sampled.app, arms.scored.app);
    for (const [name, arm] of Object.entries(arms)) {
      const k = client(arm.app);
      arm.agentId = (await call<{ id: string }>(k, 'POST', '/v1/agents', { name: `online ${name}`, model: 'openai-compatible/hosted', instructions: 'Answer briefly.' }, 201)).body.id;
      if (arm.rule) await call(k, 'POST', `/v1/agents/${arm.agentId}/eval-rules`, { sampleRate: 1, scorers: [{ type: 'contains', value: 'order' }, { type: 'regex', pattern: '^Hello' }] }, 201);
      await k.agent.close();
    }
    /** Every sampled run of the scoring app scored: its newest executions carry scores. */
    const scoredAll = async () => {
      const k = client(arms.scored.app);
      const list = await call<{ data: { scores: unknown; status: string }[] }>(k, 'GET', `/v1/executions?agentId=${arms.scored.agentId}&limit=5`);
      await k.agent.close();
      return list.body.data.every((e) => e.status !== 'succeeded' || e.scores !== null);
    };
    const names = ['none', 'sampled', 'scored'] as const;
    const rounds: Record<(typeof names)[number], number>[] = [];
    for (let r = -1; r < ROUNDS; r++) {
      const got = {} as Record<(typeof names)[number], number>;
      for (let j = 0; j < names.length; j++) {
        const name = names[(r + 1 + j) % names.length]!;
        const served = await serve(arms[name].app, arms[name].agentId, name === 'scored' ? scoredAll : async () => true);
        got[name] = served.cpu / Math.max(1, served.runs);
      }
      if (r >= 0) rounds.push(got);
    }
    const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
    const sampling = rounds.map((x) => x.sampled - x.none);
    const scoring = rounds.map((x) => x.scored - x.none);
    const f = (x: number) => x.toFixed(2);
    console.log(`  online scoring, ${ROUNDS} rounds × ${SECONDS} s per arm, ${CLIENTS} clients, wait runs of one model call, a rule at sampleRate 1 with 2 scorers:`);
    console.log(`    CPU per run: no rule ${f(median(rounds.map((x) => x.none)))} ms, sampled (scored elsewhere) ${f(median(rounds.map((x) => x.sampled)))} ms, sampled and scored ${f(median(rounds.map((x) => x.scored)))} ms`);
    console.log(`    the run itself (sampling in its finish): ${signed(median(sampling))} ms per run (rounds ${sampling.map(signed).join(', ')}); target ≤ +1 ms`);
    console.log(`    with the scoring in the same process: ${signed(median(scoring))} ms per run (rounds ${scoring.map(signed).join(', ')})`);
  } finally {
    await stopAll(apps.flatMap((a) => a.children));
    for (const a of apps) if (a.dataDir) fs.rmSync(a.dataDir, { recursive: true, force: true });
    model.child.disconnect();
  }
}
