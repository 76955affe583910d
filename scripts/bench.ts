// `npm run bench`: GET /v1/keys?limit=20 and GET /v1/agents?limit=20 with a valid key through
// the real server (custom node:http server → /v1 route table → tRPC caller → drizzle), in both
// scaled-out topologies (rate limits in Redis; in PostgreSQL without Redis), against a bare
// node:http + postgres.js server doing the same work — all in the same run, on the same
// PostgreSQL database, so each ratio compares numbers measured minutes apart on the same
// machine. Then executions on a fake ~1 ms model (scripts/bench/executions.ts), and webhook
// deliveries to a local receiver (scripts/bench/webhooks.ts). docs/benchmark.md.
//
// Short runs, order rotated each round, ratios taken round by round (each target against the
// baseline of its own round) and summarised by their median; CPU per request is measured too.
//
//   BENCH_SECONDS (6)  BENCH_CONNECTIONS (50)  BENCH_ROUNDS (5)
//   BENCH_STORES (redis,postgres,redis-off): which app topologies to run for the lists; redis-off is
//   the Redis one with usage analytics off (USAGE_ANALYTICS=false), to read what recording costs
//   BENCH_PARTS (list,executions,webhooks,hosted,noisy,usage,schedules,approvals,budgets,audit,traces,evals): which parts to run; see scripts/bench/*.ts.
//   `clients` (model clients' CPU per streamed call, no database) runs only when named: BENCH_PARTS=clients
//   `peers` (Mastra and this service at a hosted model's pace, in the same run) only when named: BENCH_PARTS=peers
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import { sample, storePids, used } from './bench/cpu';
import { freshSetup, type Setup } from './bench/setup';
import { benchApprovals } from './bench/approvals';
import { benchBudgets } from './bench/budgets';
import { benchAudit } from './bench/audit';
import { benchClients } from './bench/clients';
import { benchExecutions } from './bench/executions';
import { benchHosted } from './bench/hosted';
import { benchNoisy } from './bench/noisy';
import { benchPeers } from './bench/peers';
import { benchSchedules } from './bench/schedules';
import { benchUsage } from './bench/usage';
import { benchTraces } from './bench/traces';
import { benchEvals } from './bench/evals';
import { benchWebhooks } from './bench/webhooks';
import { cpuProfFlags, freePorts, median, range, sleep, spawnService, stopAll, waitFor } from './bench/util';

const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const STORES = (process.env.BENCH_STORES ?? 'redis,postgres,redis-off').split(',').filter((s) => ['redis', 'postgres', 'redis-off'].includes(s));
const PARTS = (process.env.BENCH_PARTS ?? 'list,executions,webhooks,hosted,noisy,usage,schedules,approvals,budgets,audit,traces,evals').split(',');
const PATHS = ['/v1/keys?limit=20', '/v1/agents?limit=20'];

const TITLES: Record<string, string> = {
  baseline: 'baseline (node:http + postgres.js)',
  redis: 'app, rate limits in Redis',
  postgres: 'app, rate limits in PostgreSQL',
  'redis-off': 'app, Redis, usage analytics off',
};

interface Target {
  name: string;
  /** http://127.0.0.1:port */
  origin: string;
  pid: number;
}

interface Result {
  path: string;
  target: string;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU µs per request: the server process, and the database backends + Redis. */
  cpuServer: number;
  cpuStores: number;
}

const load = (url: string, key: string, seconds: number) =>
  autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: { authorization: `Bearer ${key}` } });

/** What a list answers: the ids for keys (their lastUsed moves), the whole page for agents. */
const answer = async (url: string, key: string) => {
  const body = (await (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string }[] };
  return JSON.stringify(url.includes('/v1/keys') ? body.data.map((x) => x.id) : body);
};

function report(path: string, all: Result[]) {
  const results = all.filter((r) => r.path === path);
  console.log(`\nGET ${path} · ${CONNECTIONS} connections · ${ROUNDS} rounds × ${SECONDS} s per server (order rotated each round)`);
  console.table(
    results.map((r) => ({
      round: r.round,
      server: TITLES[r.target],
      'req/s': r.rps,
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      'CPU µs/req server + db': `${r.cpuServer} + ${r.cpuStores}`,
      errors: r.errors,
    })),
  );
  const of = (target: string) => results.filter((r) => r.target === target);
  const base = of('baseline');
  const baseCpu = median(base.map((b) => b.cpuServer + b.cpuStores));
  const rows = ['baseline', ...STORES].map((target) => {
    const rs = of(target);
    // Each run against the baseline run of the same round.
    const ratios = rs.map((r) => r.rps / base.find((b) => b.round === r.round)!.rps);
    const cpu = median(rs.map((r) => r.cpuServer + r.cpuStores));
    return {
      server: TITLES[target],
      'req/s median (range)': `${Math.round(median(rs.map((r) => r.rps)))} (${range(rs.map((r) => r.rps))})`,
      'ratio median (range)': target === 'baseline' ? '1' : `${median(ratios).toFixed(2)}× (${range(ratios, 2)})`,
      'p50 ms': range(rs.map((r) => r.p50)),
      'p99 ms': `${median(rs.map((r) => r.p99))} (${range(rs.map((r) => r.p99))})`,
      'CPU µs/req': Math.round(cpu),
      'CPU ratio': target === 'baseline' ? '1' : `${(baseCpu / cpu).toFixed(2)}×`,
    };
  });
  console.table(rows);
  console.log('ratio: req/s against the baseline of the same round. CPU µs/req: server process + PostgreSQL backends + Redis;');
  console.log('CPU ratio: baseline CPU per request ÷ this server\'s, what the ratio would be with the CPU to itself.');
  if (results.some((r) => r.errors > 0)) console.log('warning: some requests failed (non-2xx or socket errors)');
}

/**
 * 25 agents, created through the API like a user would (the list shows 20 and `hasMore`), taking
 * turns among the apps: a process that served a create answers later requests dearer
 * (scripts/bench/tx-slowdown.ts), so every app is measured in the state a serving process is in.
 */
async function seedAgents(origins: string[], key: string) {
  for (let i = 0; i < 25; i++) {
    const res = await fetch(`${origins[i % origins.length]}/v1/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Bench agent ${i}`,
        description: 'Answers questions about orders',
        model: 'openai-compatible/bench-fake',
        instructions: 'You are a helpful support agent. Answer briefly.',
        metadata: { team: 'support', index: String(i) },
      }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/agents answered ${res.status}: ${await res.text()}`);
  }
}


/** The list part: the baseline and the app in each topology of BENCH_STORES, on both lists. */
async function benchLists({ env, key, admin, dbName, redis }: Setup) {
  const children: ChildProcess[] = [];
  try {
    const [basePort, ...appPorts] = (await freePorts(STORES.length + 1)) as [number, ...number[]];
    const targets: Target[] = [];
    const base = fork('scripts/bench/baseline.ts', { env: { ...env, PORT: String(basePort) }, execArgv: ['--import', 'tsx', ...cpuProfFlags()], stdio: 'inherit' });
    children.push(base);
    const baseReady = new Promise<void>((r) => base.once('message', () => r()));
    for (const [i, store] of STORES.entries()) {
      const port = appPorts[i]!;
      const app = spawnService('main', {
        ...env,
        PORT: String(port),
        ...(store !== 'postgres' ? { REDIS_URL } : {}),
        ...(store === 'redis-off' ? { USAGE_ANALYTICS: 'false' } : {}),
      });
      children.push(app);
      await waitFor(`http://127.0.0.1:${port}/readyz`, app);
      targets.push({ name: store, origin: `http://127.0.0.1:${port}`, pid: app.pid! });
    }
    await baseReady;
    targets.unshift({ name: 'baseline', origin: `http://127.0.0.1:${basePort}`, pid: base.pid! });
    if (targets.length > 1) await seedAgents(targets.slice(1).map((t) => t.origin), key);

    for (const path of PATHS) {
      // Same answer from every server, so they really do the same work.
      const answers = await Promise.all(targets.map((t) => answer(t.origin + path, key)));
      if (new Set(answers).size !== 1) throw new Error(`the servers disagree on ${path}: ${answers.join(' / ')}`);
      // Warm-up (JIT, connection pools, prepared statements).
      for (const t of targets) await load(t.origin + path, key, 3);
    }
    const results: Result[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const path of PATHS) {
        for (let i = 0; i < targets.length; i++) {
          const t = targets[(i + round - 1) % targets.length]!;
          const before = sample(t.pid, await storePids(admin, dbName, redis));
          const r = await load(t.origin + path, key, SECONDS);
          const cpu = used(before, sample(t.pid, await storePids(admin, dbName, redis)));
          const perRequest = (ms: number) => Math.round((ms * 1000) / Math.max(r.requests.total, 1));
          results.push({
            path,
            target: t.name,
            round,
            rps: Math.round(r.requests.average),
            p50: r.latency.p50,
            p99: r.latency.p99,
            errors: r.non2xx + r.errors,
            cpuServer: perRequest(cpu.server),
            cpuStores: perRequest(cpu.stores),
          });
        }
      }
    }
    for (const path of PATHS) report(path, results);
  } finally {
    // Let the last requests drain, then stop the servers.
    await sleep(1000);
    await stopAll(children);
  }
}

async function main() {
  // The model clients need no database: they run first, and alone when they are the only part.
  if (PARTS.includes('clients')) await benchClients();
  if (PARTS.every((p) => p === 'clients')) return;
  // The compiled server every part's processes run (launch.js), compiled here once when the
  // sources changed rather than by the first processes at once.
  const { ensureServerBundle } = await import('../server/processes/server-bundle.js');
  const { sourceFingerprint } = await import('../server/processes/source-fingerprint.js');
  await ensureServerBundle({ fingerprint: sourceFingerprint() });
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const { drop, ...setup } = await freshSetup(admin, ADMIN_URL, REDIS_URL);
  const { env } = setup;
  try {

    if (PARTS.includes('list')) await benchLists(setup);
    if (PARTS.includes('executions')) await benchExecutions({ ...setup, redisUrl: REDIS_URL });
    if (PARTS.includes('webhooks')) await benchWebhooks(setup);
    if (PARTS.includes('hosted')) await benchHosted({ ...setup, redisUrl: REDIS_URL });
    if (PARTS.includes('noisy')) await benchNoisy({ ...setup, redisUrl: REDIS_URL });
    if (PARTS.includes('usage')) await benchUsage({ ...setup, redisUrl: REDIS_URL }, ADMIN_URL);
    if (PARTS.includes('schedules')) await benchSchedules({ ...setup, redisUrl: REDIS_URL });
    if (PARTS.includes('peers')) await benchPeers({ ...setup, redisUrl: REDIS_URL }, () => freshSetup(admin, ADMIN_URL, REDIS_URL));
    if (PARTS.includes('approvals')) await benchApprovals({ env, redisUrl: REDIS_URL });
    if (PARTS.includes('budgets')) await benchBudgets({ ...setup, redisUrl: REDIS_URL });
    if (PARTS.includes('audit')) await benchAudit({ env });
    if (PARTS.includes('traces')) await benchTraces({ ...setup, redisUrl: REDIS_URL });
    if (PARTS.includes('evals')) await benchEvals({ ...setup, redisUrl: REDIS_URL });
  } finally {
    await drop();
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
