// The schedules part of `npm run bench` (docs/benchmark.md, "Schedules"):
//   - burst: BENCH_SCHEDULES (1,000) schedules due at the same minute, on one web process and two
//     worker processes (both tick). They belong to ten workspaces (100 each, the most one may
//     have), on `sandbox/echo`. From the occurrence: when every execution exists (queued), has
//     started (running) and has finished; and that there is exactly one per schedule.
//   - idle: the same schedules not due; the tick a worker runs every minute, timed BENCH_TICKS
//     times in a forked process (its CPU, and the database backends'), as CPU per hour.
import { fork } from 'node:child_process';
import postgres from 'postgres';
import { sample, storePids, used } from './cpu';
import { call, cli, clientAgent, type Client } from './hosted';
import { freePorts, sleep, spawnService, stopAll, waitFor } from './util';

const COUNT = Number(process.env.BENCH_SCHEDULES ?? 1000);
const PER_TENANT = 100;

export interface SchedulesSetup {
  env: NodeJS.ProcessEnv;
  admin: postgres.Sql;
  dbName: string;
  redis: number | undefined;
  redisUrl: string;
}

interface Progress {
  created: number;
  schedules: number;
  started: number;
  final: number;
  lastCreated: Date | null;
  lastStarted: Date | null;
  lastFinal: Date | null;
}

export async function benchSchedules(setup: SchedulesSetup): Promise<void> {
  const [port] = await freePorts(1);
  const origin = `http://127.0.0.1:${port}`;
  const env = { ...setup.env, REDIS_URL: setup.redisUrl };
  const web = spawnService('main', { ...env, PORT: String(port), RUN_WORKERS: 'false' });
  const workers = [spawnService('worker', env), spawnService('worker', env)];
  const children = [web, ...workers];
  const db = postgres(String(setup.env.DATABASE_URL), { max: 2, onnotice: () => {} });
  try {
    await waitFor(`${origin}/readyz`, web);
    // Ten workspaces of 100 schedules, made through the API (paused: they start all at once below).
    const tenants = Math.ceil(COUNT / PER_TENANT);
    let made = 0;
    for (let t = 0; t < tenants; t++) {
      const email = `schedules-${t}@example.com`;
      await cli(env, ['create-user', '--email', email, '--password', 'bench-password']);
      await cli(env, ['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000', '--concurrency', '10000']);
      const c: Client = { agent: clientAgent(), origin, key: await cli(env, ['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'schedules']) };
      const agent = await call<{ id: string }>(c, 'POST', '/v1/agents', { name: 'Scheduled', model: 'sandbox/echo' }, 201);
      const n = Math.min(PER_TENANT, COUNT - made);
      for (let i = 0; i < n; i += 20) {
        await Promise.all(
          Array.from({ length: Math.min(20, n - i) }, (_, j) =>
            call(c, 'POST', '/v1/schedules', { agentId: agent.body.id, cron: '* * * * *', input: `scheduled ${t}-${i + j}`, enabled: false }, 201),
          ),
        );
      }
      made += n;
      await c.agent.close();
    }

    // All due at the next minute at least 5 s away (as if each had been enabled for it).
    const occurrence = new Date(Math.ceil((Date.now() + 5_000) / 60_000) * 60_000);
    await db`update schedules set enabled = true, next_run_at = ${occurrence}`;
    console.log(`\nschedules: ${COUNT} due at ${occurrence.toISOString()} (${tenants} workspaces), 2 worker processes ticking…`);
    const cpuBefore = sample(workers.map((w) => w.pid!), await storePids(setup.admin, setup.dbName, setup.redis));
    let p: Progress;
    const deadline = occurrence.getTime() + 120_000;
    for (;;) {
      [p] = (await db`select count(*)::int as created, count(distinct schedule_id)::int as schedules,
          count(started_at)::int as started, count(completed_at)::int as final,
          max(created_at) as "lastCreated", max(started_at) as "lastStarted", max(completed_at) as "lastFinal"
        from executions where trigger->>'scheduledFor' = ${occurrence.toISOString()}`) as unknown as [Progress];
      if (p.final >= COUNT || Date.now() > deadline) break;
      await sleep(50);
    }
    const cpu = used(cpuBefore, sample(workers.map((w) => w.pid!), await storePids(setup.admin, setup.dbName, setup.redis)));
    await db`update schedules set enabled = false, next_run_at = null`;
    const since = (d: Date | null) => (d ? `${((new Date(d).getTime() - occurrence.getTime()) / 1000).toFixed(2)} s` : 'never');
    const [{ doubled }] = (await db`select count(*)::int as doubled from (select schedule_id from executions where schedule_id is not null group by schedule_id, trigger->>'scheduledFor' having count(*) > 1) d`) as unknown as [{ doubled: number }];
    console.table([
      {
        schedules: COUNT,
        'executions (one per schedule)': `${p!.created} (${p!.schedules} schedules)`,
        'doubled occurrences': doubled,
        'all queued after': since(p!.lastCreated),
        'all running after': since(p!.lastStarted),
        'all finished after': since(p!.lastFinal),
        'CPU ms workers + db': `${Math.round(cpu.server)} + ${Math.round(cpu.stores)}`,
      },
    ]);

    // Idle: none due; what a tick costs, and so a schedule per hour.
    await db`update schedules set enabled = true, cron = '0 0 1 1 *', next_run_at = ${new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1))}`;
    const child = fork('scripts/bench/tick-cost.ts', { env: { ...env, LOG_LEVEL: 'warn' }, execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    const before = sample([], await storePids(setup.admin, setup.dbName, setup.redis));
    child.send('go');
    const result = await new Promise<{ ticks: number; cpuMs: number; wallMs: number }>((resolve) => child.once('message', (m) => resolve(m as never)));
    const dbCpu = used(before, sample([], await storePids(setup.admin, setup.dbName, setup.redis))).stores;
    const perTick = (result.cpuMs + dbCpu) / result.ticks;
    console.table([
      {
        'idle schedules': COUNT,
        ticks: result.ticks,
        'wall ms / tick': (result.wallMs / result.ticks).toFixed(2),
        'CPU ms / tick (process + db)': `${(result.cpuMs / result.ticks).toFixed(2)} + ${(dbCpu / result.ticks).toFixed(2)}`,
        'CPU ms / hour per worker process': (perTick * 60).toFixed(0),
        'CPU µs / hour per schedule': ((perTick * 60 * 1000) / COUNT).toFixed(1),
      },
    ]);
    console.log('A tick is one indexed query for the due rows: its cost does not grow with the schedules that are not due.');
  } finally {
    await db.end();
    await stopAll(children);
  }
}
