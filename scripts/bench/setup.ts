import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { redisPid } from './cpu';

// A bench database of its own: created on the bench's PostgreSQL, migrated, with a user on the
// enterprise plan and a live key (the admin CLI, as an operator would make them). `npm run bench`
// makes one for all its parts; the peers part makes one per server on PostgreSQL, so that no
// server starts on what the one before it left (runs, queued work, a workspace's slots).

export interface Setup {
  env: NodeJS.ProcessEnv;
  key: string;
  admin: postgres.Sql;
  dbName: string;
  redis: number | undefined;
}

/** A new database with its user and key; `drop` removes it. */
export async function freshSetup(admin: postgres.Sql, adminUrl: string, redisUrl: string): Promise<Setup & { drop: () => Promise<void> }> {
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const drop = async () => void (await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {}));
  try {
    const env = {
      ...process.env,
      DATABASE_URL: adminUrl.replace(/\/[^/]*$/, `/${dbName}`),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production' as const,
      DASHBOARD: 'false',
      HOST: '127.0.0.1',
      RUN_WORKERS: 'false',
      AUTH_SECRET: randomBytes(32).toString('hex'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      REDIS_URL: '',
      // Every client of the bench connects from 127.0.0.1 (up to 1,000 streams and 200 clients at
      // once): the per-address cap (docs/security.md, "Connections per address") is off, so the
      // scenarios measure the service, not the cap.
      MAX_CONNECTIONS_PER_ADDRESS: '0',
    };
    const cli = (args: string[]) =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, ['server/processes/launch.js', 'admin', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        p.stdout.on('data', (d: Buffer) => (out += d));
        p.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`admin ${args[0]} failed`))));
      });
    const email = 'bench@example.com';
    await cli(['create-user', '--email', email, '--password', 'bench-password']);
    // Enterprise: a per-minute limit the load never reaches, no daily cap, and as many executions at
    // once as the load makes (see docs/benchmark.md).
    await cli(['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', '10000']);
    const key = await cli(['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'bench']);
    for (let i = 0; i < 24; i++) await cli(['create-key', '--email', email, '--env', 'live', '--name', `filler ${i}`]);
    return { env, key, admin, dbName, redis: await redisPid(redisUrl), drop };
  } catch (err) {
    await drop();
    throw err;
  }
}
