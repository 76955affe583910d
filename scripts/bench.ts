// `npm run bench`: GET /v1/keys?limit=20 with a valid key through the real server (custom
// node:http server → /v1 fast path → trpc-to-openapi → drizzle), against a bare node:http +
// postgres.js server doing the same work, in the same run, on the same PostgreSQL database.
// Both servers run as child processes; autocannon drives them in turn (alternating rounds).
//
//   BENCH_SECONDS (10)  BENCH_CONNECTIONS (50)  BENCH_ROUNDS (2)
//   BENCH_STORE: redis (default, the scaled-out set-up) | postgres (rate limits in PostgreSQL)
import autocannon from 'autocannon';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import postgres from 'postgres';

const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const STORE = process.env.BENCH_STORE === 'postgres' ? 'postgres' : 'redis';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, child: ChildProcess) {
  for (let i = 0; i < 300; i++) {
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

function run(name: string, url: string, key: string, seconds: number) {
  return autocannon({
    title: name,
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${key}` },
  });
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
      AUTH_SECRET: randomBytes(32).toString('hex'),
      ...(STORE === 'redis' ? { REDIS_URL } : { REDIS_URL: '' }),
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
    await cli(['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000']);
    const key = await cli(['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'bench']);
    for (let i = 0; i < 24; i++) await cli(['create-key', '--email', email, '--env', 'live', '--name', `filler ${i}`]);

    const appPort = await freePort();
    // node itself (not npx), so SIGTERM reaches the server and it shuts down cleanly.
    const app = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: { ...env, PORT: String(appPort) },
      stdio: 'inherit',
    });
    children.push(app);
    const basePort = await freePort();
    const base = fork('scripts/bench/baseline.ts', {
      env: { ...env, PORT: String(basePort) },
      execArgv: ['--import', 'tsx'],
      stdio: 'inherit',
    });
    children.push(base);
    const appUrl = `http://127.0.0.1:${appPort}/v1/keys?limit=20`;
    const baseUrl = `http://127.0.0.1:${basePort}/v1/keys?limit=20`;
    await waitFor(`http://127.0.0.1:${appPort}/readyz`, app);
    await new Promise<void>((r) => base.once('message', () => r()));

    // Same answer from both, so they really do the same work.
    const [a, b] = await Promise.all(
      [appUrl, baseUrl].map((u) => fetch(u, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())),
    );
    if (JSON.stringify(a.data.map((x: { id: string }) => x.id)) !== JSON.stringify(b.data.map((x: { id: string }) => x.id))) {
      throw new Error('app and baseline disagree');
    }

    // Warm-up (JIT, connection pools, prepared statements).
    await run('app warm-up', appUrl, key, 3);
    await run('baseline warm-up', baseUrl, key, 3);
    const results: { name: string; rps: number; p50: number; p99: number; errors: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, url] of [
        ['baseline', baseUrl],
        ['app', appUrl],
      ] as const) {
        const r = await run(name, url, key, SECONDS);
        results.push({
          name: `${name} #${round}`,
          rps: Math.round(r.requests.average),
          p50: r.latency.p50,
          p99: r.latency.p99,
          errors: r.non2xx + r.errors,
        });
      }
    }
    const mean = (prefix: string) => {
      const rs = results.filter((r) => r.name.startsWith(prefix));
      return rs.reduce((s, r) => s + r.rps, 0) / rs.length;
    };
    console.log(`\nGET /v1/keys?limit=20, ${CONNECTIONS} connections, ${SECONDS}s × ${ROUNDS} rounds, rate-limit store: ${STORE}`);
    console.table(results);
    const ratio = mean('app') / mean('baseline');
    console.log(`app ${Math.round(mean('app'))} req/s vs baseline ${Math.round(mean('baseline'))} req/s → ratio ${ratio.toFixed(2)}×`);
    if (results.some((r) => r.errors > 0)) console.log('warning: some requests failed (non-2xx or socket errors)');
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
