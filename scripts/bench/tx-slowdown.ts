// A finding (docs/benchmark.md, "Issue 49, eleventh session" and "twelfth session"): a process
// that has run a drizzle builder statement on a second session's handle at the same call sites
// (`tx.select()…` inside `db.transaction`, or a second drizzle instance over the same client)
// answers later statements, outside any transaction, 30–60 % dearer on CPU for good. Most of it
// is off the main thread: V8's full collections come 2–3× as often (3× the bytes promoted by
// the young generation's scavenges), and each full collection drops the optimized code of the
// closures made per call (drizzle's, ours), which TurboFan then compiles again. Raw SQL on the
// transaction (`tx.execute`), the main handle inside a transaction and the same second session
// reached through the first one's `db` do not do it.
//
//   node --max-semi-space-size=16 --heap-growing-percent=25 --import tsx scripts/bench/tx-slowdown.ts [mode]
//
// mode: `tx-select` (default: a builder select on the transaction's handle), `main-select`
// (the main handle inside a transaction), `tx-execute` (raw SQL on the transaction), `db2` (a
// second drizzle instance over the same postgres.js client), `db2-same-session` (that instance
// given the first one's session), `none`. Prints CPU per statement of 50 concurrent builder
// selects, twice before and twice after, the whole process's and its main thread's.
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { openDatabase } from '../../db/client';
import { apiKeys } from '../../db/schema';
import { freshSetup } from './setup';

const ADMIN = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MODE = process.argv[2] ?? 'tx-select';
const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
const { drop, env } = await freshSetup(admin, ADMIN, process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const database = await openDatabase({ databaseUrl: env.DATABASE_URL!, dataDir: '/tmp/unused', max: 10 });
const db = database.db;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const select = (on: typeof db) => on.select().from(apiKeys).where(eq(apiKeys.environment, 'live')).limit(21);

async function load(ms: number): Promise<number> {
  let n = 0;
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (Date.now() < end) {
        await select(db);
        n++;
      }
    }),
  );
  return n;
}

try {
  await load(2000);
  for (const phase of ['before', 'before', 'transactions', 'after', 'after']) {
    if (phase === 'transactions') {
      for (let i = 0; i < 3; i++) {
        if (MODE === 'tx-select') await db.transaction(async (tx) => void (await select(tx as unknown as typeof db)));
        if (MODE === 'main-select') await db.transaction(async () => void (await select(db)));
        if (MODE === 'db2' || MODE === 'db2-same-session') {
          const second = drizzle(database.sql!);
          const { session } = db as unknown as { session: unknown };
          if (MODE === 'db2-same-session') for (const holder of [second, second._]) Object.assign(holder, { session });
          await select(second as unknown as typeof db);
        }
        if (MODE === 'tx-execute') await db.transaction(async (tx) => void (await tx.execute(sql`select * from api_keys where environment = ${'live'} limit 21`)));
      }
      console.log(`3 transactions (${MODE})`);
      continue;
    }
    const c0 = cpuMs();
    const t0 = process.threadCpuUsage();
    const n = await load(3000);
    const t1 = process.threadCpuUsage();
    const main = (t1.user + t1.system - t0.user - t0.system) / n;
    console.log(`${phase}: ${n} selects, ${(((cpuMs() - c0) * 1000) / n).toFixed(1)} µs of CPU each (${main.toFixed(1)} on the main thread)`);
  }
} finally {
  await database.close();
  await drop();
  await admin.end();
}
