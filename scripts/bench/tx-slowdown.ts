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
// given the first one's session), `none`. The seventeenth session's modes, to find which part of
// a drizzle transaction does it: `pg-tx` (postgres.js's own transaction through our `preparing`
// client, the same prepared select: no slowdown), `session2` (a second drizzle session over the
// main client: none), `tx-like` (a drizzle transaction object over the main client, no
// transaction: none), `tx-main-client` (a real transaction, its builder select through a session
// over the main client: none), `tx-session-main` (a real transaction, its builder select through
// the transaction's own session: the slowdown). `db2` is confounded: drizzle over the bare client
// runs unprepared statements and puts new closures into postgres.js's date parsers. Prints CPU per statement of 50 concurrent builder
// selects, twice before and twice after, the whole process's and its main thread's.
// The eighteenth session found the cause and removed it: db/postgres-prepared.ts wrapped each
// client in a Proxy with an `unsafe` of its own, so drizzle's hot call site met a new function
// with every transaction; each client now carries one shared function and the slowdown is gone
// (`tx-select`, `tx-session-main`: the second "after" as low as the "before"s).
// TX_DB=pglite runs it on a fresh embedded database (modes `tx-select`, `alone`, `none`): no
// lasting slowdown there.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { alone } from '../../db/transaction';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { openDatabase } from '../../db/client';
import { apiKeys } from '../../db/schema';
import { freshSetup } from './setup';
import { PgDatabase } from 'drizzle-orm/pg-core/db';
import { PostgresJsSession, PostgresJsTransaction } from 'drizzle-orm/postgres-js/session';

const ADMIN = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MODE = process.argv[2] ?? 'tx-select';
const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
const EMBEDDED = process.env.TX_DB === 'pglite';
const dataDir = EMBEDDED ? mkdtempSync(path.join(os.tmpdir(), 'tx-slowdown-')) : '/tmp/unused';
const { drop, env } = EMBEDDED ? { drop: async () => rmSync(dataDir, { recursive: true, force: true }), env: {} as Record<string, string> } : await freshSetup(admin, ADMIN, process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir, max: 10 });
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
        const main = db as unknown as { dialect: never; session: { client: never } };
        if (MODE === 'pg-tx') {
          const client = main.session.client as unknown as typeof database.sql & object;
          await client!.begin(async (s) => void (await s.unsafe('select * from api_keys where environment = $1 limit $2', ['live', 21], { prepare: true }).values()));
        }
        if (MODE === 'session2') await select(new PgDatabase(main.dialect, new PostgresJsSession(main.session.client, main.dialect, undefined, {}), undefined) as unknown as typeof db);
        if (MODE === 'tx-like') await select(new PostgresJsTransaction(main.dialect, new PostgresJsSession(main.session.client, main.dialect, undefined, {}), undefined as never) as unknown as typeof db);
        if (MODE === 'tx-main-client' || MODE === 'tx-session-main') {
          await db.transaction(async (tx) => {
            const own = (tx as unknown as { session: never }).session;
            const session = MODE === 'tx-session-main' ? own : new PostgresJsSession(main.session.client, main.dialect, undefined, {});
            await select(new PostgresJsTransaction(main.dialect, session, undefined as never) as unknown as typeof db);
          });
        }
        if (MODE === 'alone') await alone(db, async (tx) => void (await select(tx)));
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
