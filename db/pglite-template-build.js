// @ts-check
// Makes a migrated embedded database in the directory given: PGlite's initdb, the migrations
// (as db/migrate.ts applies them on PGlite) and pg-boss's schema (as its first start makes it),
// then prints how long each took, as one JSON line. db/pglite-template.ts runs it as a process of
// its own: initdb grows the WebAssembly memory of the process it runs in by ~450 MB, never given
// back (docs/concurrency.md, "Memory per run"), so the server must not run it itself.
//
//   node db/pglite-template-build.js <pgdata> <migrations folder> <PGlite start parameters, JSON>
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { PgBoss, fromPglite } from 'pg-boss';

const [pgdata, migrationsFolder, startParams] = process.argv.slice(2);
if (!pgdata || !migrationsFolder || !startParams) {
  process.stderr.write('usage: node db/pglite-template-build.js <pgdata> <migrations folder> <start parameters as JSON>\n');
  process.exit(2);
}

// The process that started us died (its stdin pipe closed): stop; it left its lock to be taken
// over, and a directory that is never renamed into place.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();

const timings = { initdb: 0, migrations: 0, jobs: 0 };
let started = performance.now();
const lap = (/** @type {keyof typeof timings} */ name) => {
  timings[name] = Math.round(performance.now() - started);
  started = performance.now();
};

const db = await PGlite.create(pgdata, { startParams: [...PGlite.defaultStartParams, ...JSON.parse(startParams)] });
lap('initdb');
await migrate(drizzle(db), { migrationsFolder });
lap('migrations');
// The queues are left to each process's start (server/processes/workers.ts declares them).
const boss = new PgBoss({ db: fromPglite(db), backend: 'pglite', schedule: false, supervise: false });
await boss.start();
await boss.stop({ graceful: false, close: true });
lap('jobs');
await db.close();
process.stdout.write(`${JSON.stringify(timings)}\n`);
process.exit(0);
