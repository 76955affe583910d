import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { withPreparedStatements } from './pglite-prepared';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { Turns } from './lanes';
import { startCheckpoints } from './pglite-checkpoints';
import { acquireDataDirLock } from './lock';
import { ensurePgliteDatabase, PGLITE_START_PARAMS, type CreatedDatabase } from './pglite-init';
import { forDrizzle, adoptDrizzleParsers, withDefaultParsers } from './pglite-parsers';
import { preparing } from './postgres-prepared';
import { markPostgres } from './transaction';
import type * as schema from './schema';

export type Schema = typeof schema;
/**
 * The database as the code uses it: drizzle's query builders, without its relational queries
 * (`db.query.*`, used nowhere). drizzle is given no schema: with one, every transaction built a
 * relational query builder for each table (tens of objects per transaction on the hot paths).
 */
export type Db = PgDatabase<PgQueryResultHKT>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** The raw clients, for the few places that need them (rate-limit store, job queue). */
  pglite?: PGlite;
  /** The PGlite instance with PGlite's usual type parsing (dates as Date), for the job queue (db/pglite-parsers.ts). */
  pgliteDefault?: Pick<PGlite, 'query' | 'exec' | 'listen'>;
  /** PGlite's turns: the calls waiting for the one connection, by line (db/lanes.ts). */
  turns?: Turns;
  sql?: postgres.Sql;
  url?: string;
  /** How the embedded database was made at this opening, when it was (db/pglite-init.ts). */
  created?: CreatedDatabase;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Pool size for PostgreSQL. */
  max?: number;
  /** Where the embedded database's migrated templates live (PGLITE_TEMPLATE_DIR; db/pglite-template.ts). */
  templateDir?: string;
  /** A failed checkpoint of the embedded database (db/pglite-checkpoints.ts: the next turn tries again). */
  onCheckpointError?: (err: unknown) => void;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.max ?? 10, 'agent-service');
  const release = acquireDataDirLock(opts.dataDir);
  try {
    const pgdata = path.join(opts.dataDir, 'pgdata');
    // A new database is a copy of the installation's migrated template (db/pglite-init.ts).
    const created = await ensurePgliteDatabase(pgdata, { templateDir: opts.templateDir });
    const pglite = await PGlite.create(pgdata, { startParams: [...PGlite.defaultStartParams, ...PGLITE_START_PARAMS] });
    const defaults = adoptDrizzleParsers(pglite);
    // Every caller's calls wait in its own line, served in turn (db/lanes.ts).
    const turns = new Turns();
    const turn = <R>(call: () => Promise<R>) => turns.run(call);
    // drizzle's statements run as named prepared statements: parsed and planned once per text (db/pglite-prepared.ts).
    const db = drizzlePglite(forDrizzle(withPreparedStatements(pglite), turn)) as unknown as Db;
    // PGlite has no checkpointer: the process checkpoints it (db/pglite-checkpoints.ts).
    const stopCheckpoints = startCheckpoints(db, { onError: opts.onCheckpointError });
    return {
      kind: 'pglite',
      db,
      pglite,
      turns,
      pgliteDefault: withDefaultParsers(pglite, defaults, turn),
      created,
      close: async () => {
        try {
          await stopCheckpoints();
          await pglite.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

function openPostgres(url: string, max: number, applicationName: string): Database {
  const sql = postgres(url, { max, onnotice: () => {}, connection: { application_name: applicationName } });
  // drizzle's statements are prepared (db/postgres-prepared.ts): one round trip each, not two.
  const prepared = preparing(sql);
  const db = drizzlePostgres(prepared) as unknown as Db;
  markPostgres(db, prepared);
  return { kind: 'postgres', db, sql, url, close: () => sql.end({ timeout: 5 }) };
}

/**
 * One connection of its own to the same PostgreSQL, for a loop whose statements must not wait in
 * the pool's queue behind everyone else's (the worker's claims: docs/concurrency.md, "Claims").
 * Undefined on PGlite, where each caller's calls already wait in a line of their own (db/lanes.ts).
 */
export function openConnection(database: Database, name: string): Database | undefined {
  return database.kind === 'postgres' && database.url ? openPostgres(database.url, 1, `agent-service ${name}`) : undefined;
}
