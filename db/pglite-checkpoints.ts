import { sql } from 'drizzle-orm';
import type { Db } from './client';
import { queryRows } from './rows';
import { repeat } from '../server/platform/repeat';

// Checkpoints of the embedded database (docs/concurrency.md, "The embedded database's
// checkpoints"). PGlite runs PostgreSQL in single-user mode: there is no checkpointer, and a
// single-user backend never starts a checkpoint on its own (not after checkpoint_timeout, not past
// max_wal_size). So nothing checkpointed while the process lived: every byte of WAL since it
// started stayed in pg_wal (~14 KB a `wait` run: a gigabyte every ~75,000 runs), and a start
// after a crash replayed all of it. Here the process checkpoints itself, as PostgreSQL's
// checkpointer would: once `walBytes` of WAL were written since the last checkpoint's redo point,
// or once that checkpoint is `maxAgeSeconds` old and at least `minWalBytes` were written (an idle
// database is left alone; CHECKPOINT_LIMITS). A checkpoint lets PostgreSQL recycle the segments before it (it keeps
// about min_wal_size, 80 MB, for reuse), so pg_wal holds that plus at most one interval's WAL.
// A checkpoint is one call at the database (db/lanes.ts, the background line): requests wait for
// it as for any call under way; it writes the dirty pages of shared_buffers (32 MB at most).

export interface CheckpointLimits {
  /** WAL written since the last checkpoint that makes one due at once. */
  walBytes: number;
  /** Age of the last checkpoint that makes one due, when at least `minWalBytes` were written since. */
  maxAgeSeconds: number;
  minWalBytes: number;
}

export const CHECKPOINT_LIMITS: CheckpointLimits = { walBytes: 256 * 1024 * 1024, maxAgeSeconds: 300, minWalBytes: 1024 * 1024 };

/** How often the loop asks whether a checkpoint is due (one cheap read). */
export const CHECKPOINT_CHECK_MS = 15_000;

/** Where the WAL stands against the last checkpoint. */
export async function walSinceCheckpoint(db: Db): Promise<{ bytes: number; ageSeconds: number }> {
  const [row] = await queryRows<{ bytes: number; age: number }>(
    db,
    sql`select (pg_current_wal_insert_lsn() - redo_lsn)::float8 as bytes, extract(epoch from now() - checkpoint_time)::float8 as age from pg_control_checkpoint()`,
  );
  if (!row) throw new Error('pg_control_checkpoint() answered no row');
  return { bytes: Number(row.bytes), ageSeconds: Number(row.age) };
}

/** Checkpoints when one is due by `limits`; whether it did. */
export async function checkpointIfDue(db: Db, limits: CheckpointLimits = CHECKPOINT_LIMITS): Promise<boolean> {
  const { bytes, ageSeconds } = await walSinceCheckpoint(db);
  const due = bytes >= limits.walBytes || (ageSeconds >= limits.maxAgeSeconds && bytes >= limits.minWalBytes);
  if (due) await db.execute(sql`checkpoint`);
  return due;
}

/**
 * Asks every `everyMs` whether a checkpoint is due and takes it. A failure is reported and the
 * next turn asks again. Returns the function that stops it (after a checkpoint under way).
 */
export function startCheckpoints(db: Db, opts: { everyMs?: number; limits?: CheckpointLimits; onError?: (err: unknown) => void } = {}): () => Promise<void> {
  return repeat(
    () =>
      checkpointIfDue(db, opts.limits).then(
        () => {},
        (err: unknown) => opts.onError?.(err),
      ),
    () => opts.everyMs ?? CHECKPOINT_CHECK_MS,
  );
}
