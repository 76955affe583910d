// A finding to chase (docs/benchmark.md, "Issue 49, eleventh session"): a process that has run a
// drizzle query builder statement on a transaction's handle (`tx.select()…` inside
// `db.transaction`) answers later statements, outside any transaction, 30–60 % dearer on CPU for
// good (more GC, twice the V8 worker threads' time). Raw SQL on the transaction (`tx.execute`),
// the main handle inside a transaction, postgres.js's own `begin` and the same select without a
// transaction do not. A web process that served one create (an agent, a key: their writes run in a
// transaction) is in that state; `npm run bench`'s first app seeds the agents.
//
//   node --max-semi-space-size=8 --heap-growing-percent=25 --import tsx scripts/bench/tx-slowdown.ts [mode]
//
// mode: `tx-select` (default: a builder select on the transaction's handle), `main-select`
// (the main handle inside a transaction), `tx-execute` (raw SQL on the transaction), `none`.
// Prints CPU per statement of 50 concurrent builder selects, twice before and twice after.
import { eq, sql } from 'drizzle-orm';
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
        if (MODE === 'tx-execute') await db.transaction(async (tx) => void (await tx.execute(sql`select * from api_keys where environment = ${'live'} limit 21`)));
      }
      console.log(`3 transactions (${MODE})`);
      continue;
    }
    const c0 = cpuMs();
    const n = await load(3000);
    console.log(`${phase}: ${n} selects, ${(((cpuMs() - c0) * 1000) / n).toFixed(1)} µs of CPU each`);
  }
} finally {
  await database.close();
  await drop();
  await admin.end();
}
