import type { Db } from '../../../db/client';
import { CHANNELS, type Bus } from '../../platform/notify';

// Key lookups kept in memory, on the embedded database only (docs/security.md, "Key lookups on
// the embedded database"). There every statement runs in this one process (its data directory is
// locked: db/lock.ts), and a trigger signals each committed change to what a lookup reads
// (db/migrations/0035_key_signals.sql) on the `keys` channel, which PGlite delivers before the
// changing statement's caller goes on. So a revoked key is refused from the moment its revoke has
// committed, as without the cache. On PostgreSQL a signal reaches other processes a moment after
// the commit: there nothing is kept, and every request reads its key.
//
// A lookup read while a change committed is not kept (the generation moved). Revocation, expiry
// and `lastUsedAt` are decided from the kept row at each request, as from a fresh one.

/** Lookups kept at most; the oldest is dropped first. */
export const MAX_KEPT_LOOKUPS = 10_000;

export interface KeptLookups<Row> {
  /** The kept row of a hash. */
  get(hash: string): Row | undefined;
  /** The generation to pass to `keep`, read before the lookup's statement is sent. */
  generation(): number;
  /** Keeps a row read from the database, unless a change committed since `generation` was read. */
  keep(hash: string, row: Row, generation: number): void;
  /** Drops every kept row (a change was signalled). */
  clear(): void;
  readonly size: number;
}

export function keptLookups<Row>(max = MAX_KEPT_LOOKUPS): KeptLookups<Row> {
  const rows = new Map<string, Row>();
  let generation = 0;
  return {
    get: (hash) => rows.get(hash),
    generation: () => generation,
    keep(hash, row, at) {
      if (at !== generation) return;
      if (!rows.has(hash) && rows.size >= max) rows.delete(rows.keys().next().value!);
      rows.set(hash, row);
    },
    clear() {
      generation++;
      rows.clear();
    },
    get size() {
      return rows.size;
    },
  };
}

const byDb = new WeakMap<Db, KeptLookups<unknown>>();

/** The kept lookups of a database, when it keeps them (the embedded one). */
export function keptLookupsOf<Row>(db: Db): KeptLookups<Row> | undefined {
  return byDb.get(db) as KeptLookups<Row> | undefined;
}

/**
 * Keeps the key lookups of the embedded database for the process's life, dropped on every `keys`
 * signal (they go with the database object when it is closed). Not for PostgreSQL (see above).
 */
export function keepKeyLookups(db: Db, bus: Bus): void {
  const kept = keptLookups<unknown>();
  bus.subscribe(CHANNELS.keys, () => kept.clear());
  byDb.set(db, kept);
}
