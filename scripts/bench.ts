// `npm run bench`: GET /v1/keys?limit=20 with a valid key through the real server (custom
// node:http server → /v1 fast path → trpc-to-openapi → drizzle), in both scaled-out topologies
// (rate limits in Redis; in PostgreSQL without Redis), against a bare node:http + postgres.js
// server doing the same work — all in the same run, on the same PostgreSQL database, so each
// ratio compares numbers measured minutes apart on the same machine. docs/benchmark.md.
//
// Short runs, order rotated each round, ratios taken round by round (each target against the
// baseline of its own round) and summarised by their median; CPU per request is measured too.
//
//   BENCH_SECONDS (6)  BENCH_CONNECTIONS (50)  BENCH_ROUNDS (5)
//   BENCH_STORES (redis,postgres): which app topologies to run
import autocannon from 'autocannon';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import postgres from 'postgres';
import { redisPid, sample, storePids, used } from './bench/cpu';

const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const STORES = (process.env.BENCH_STORES ?? 'redis,postgres').split(',').filter((s) => s === 'redis' || s === 'postgres');

const TITLES: Record<string, string> = {
  baseline: 'baseline (node:http + postgres.js)',
  redis: 'app, rate limits in Redis',
  postgres: 'app, rate limits in PostgreSQL',
};

interface Target {
  name: string;
  url: string;
  pid: number;
}

interface Result {
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

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, child: ChildProcess) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${url}`);
}

const load = (url: string, key: string, seconds: number) =>
  autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: { authorization: `Bearer ${key}` } });

const ids = async (url: string, key: string) => {
  const body = (await (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string }[] };
  return JSON.stringify(body.data.map((x) => x.id));
};

const stopped = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

function report(results: Result[]) {
  console.log(`\nGET /v1/keys?limit=20 · ${CONNECTIONS} connections · ${ROUNDS} rounds × ${SECONDS} s per server (order rotated each round)`);
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

async function main() {
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const databaseUrl = ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);
  const children: ChildProcess[] = [];
  try {
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production' as const,
      DASHBOARD: 'false',
      HOST: '127.0.0.1',
      RUN_WORKERS: 'false',
      AUTH_SECRET: randomBytes(32).toString('hex'),
      REDIS_URL: '',
    };
    const cli = (args: string[]) =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
          env,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        p.stdout.on('data', (d: Buffer) => (out += d));
        p.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`admin ${args[0]} failed`))));
      });
    const email = 'bench@example.com';
    await cli(['create-user', '--email', email, '--password', 'bench-password']);
    // Enterprise: a per-minute limit the load never reaches, and no daily cap (see docs/benchmark.md).
    await cli(['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000']);
    const key = await cli(['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'bench']);
    for (let i = 0; i < 24; i++) await cli(['create-key', '--email', email, '--env', 'live', '--name', `filler ${i}`]);

    // Every port picked before any server starts, so no two are handed the same one.
    const ports: number[] = [];
    while (ports.length < STORES.length + 1) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    const [basePort, ...appPorts] = ports as [number, ...number[]];
    const targets: Target[] = [];
    const base = fork('scripts/bench/baseline.ts', { env: { ...env, PORT: String(basePort) }, execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    children.push(base);
    const baseReady = new Promise<void>((r) => base.once('message', () => r()));
    for (const [i, store] of STORES.entries()) {
      const port = appPorts[i]!;
      // node itself (not npx), so SIGTERM reaches the server and it shuts down cleanly.
      const app = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: { ...env, PORT: String(port), ...(store === 'redis' ? { REDIS_URL } : {}) },
        stdio: 'inherit',
      });
      children.push(app);
      await waitFor(`http://127.0.0.1:${port}/readyz`, app);
      targets.push({ name: store, url: `http://127.0.0.1:${port}/v1/keys?limit=20`, pid: app.pid! });
    }
    await baseReady;
    targets.unshift({ name: 'baseline', url: `http://127.0.0.1:${basePort}/v1/keys?limit=20`, pid: base.pid! });
    const redis = await redisPid(REDIS_URL);

    // Same answer from every server, so they really do the same work.
    const answers = await Promise.all(targets.map((t) => ids(t.url, key)));
    if (new Set(answers).size !== 1) throw new Error(`the servers disagree: ${answers.join(' / ')}`);

    // Warm-up (JIT, connection pools, prepared statements).
    for (const t of targets) await load(t.url, key, 3);
    const results: Result[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(i + round - 1) % targets.length]!;
        const before = sample(t.pid, await storePids(admin, dbName, redis));
        const r = await load(t.url, key, SECONDS);
        const cpu = used(before, sample(t.pid, await storePids(admin, dbName, redis)));
        const perRequest = (ms: number) => Math.round((ms * 1000) / Math.max(r.requests.total, 1));
        results.push({
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
    report(results);
  } finally {
    // Let the last requests drain, then stop the servers before dropping their database.
    await new Promise((r) => setTimeout(r, 1000));
    for (const c of children) c.kill('SIGTERM');
    await Promise.race([Promise.all(children.map(stopped)), new Promise((r) => setTimeout(r, 10_000))]);
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
