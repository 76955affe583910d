// test: pglite — the embedded database's own checkpoints (PostgreSQL has its checkpointer): runs in the PGlite pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from './client';
import { checkpointIfDue, startCheckpoints, walSinceCheckpoint } from './pglite-checkpoints';

const MB = 1024 * 1024;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-checkpoints-'));
let database: Database;

before(async () => {
  database = await openDatabase({ dataDir });
  await database.db.execute(sql`create table wal_fill (id bigint, v text)`);
});
after(async () => {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** About `mb` megabytes of WAL (rows of an md5 each, ~100 bytes of WAL a row). */
const writeWal = (mb: number) => database.db.execute(sql`insert into wal_fill select g, md5(g::text) from generate_series(1, ${Math.round(mb * 10_000)}::int) g`);
const segments = () => fs.readdirSync(path.join(dataDir, 'pgdata', 'pg_wal')).filter((f) => /^[0-9A-F]{24}$/.test(f)).length;
const never = 1e15;

describe('the embedded database checkpoints itself (db/pglite-checkpoints.ts)', () => {
  it('past the WAL limit a checkpoint moves the redo point to now; with nothing written since, none is taken', async () => {
    await checkpointIfDue(database.db, { walBytes: 0, maxAgeSeconds: never, minWalBytes: never });
    await writeWal(3);
    const behind = await walSinceCheckpoint(database.db);
    assert.ok(behind.bytes > 2 * MB, `${behind.bytes} bytes of WAL written`);
    assert.equal(await checkpointIfDue(database.db, { walBytes: 2 * MB, maxAgeSeconds: never, minWalBytes: never }), true);
    const now = await walSinceCheckpoint(database.db);
    assert.ok(now.bytes < 64 * 1024, `${now.bytes} bytes behind after the checkpoint`);
    assert.ok(now.ageSeconds < 5);
    assert.equal(await checkpointIfDue(database.db, { walBytes: 2 * MB, maxAgeSeconds: never, minWalBytes: never }), false);
  });

  it('an old checkpoint is renewed only once enough WAL was written since (an idle database is left alone)', async () => {
    const old = { walBytes: never, maxAgeSeconds: 0, minWalBytes: 1 * MB };
    await checkpointIfDue(database.db, { walBytes: 0, maxAgeSeconds: never, minWalBytes: never });
    assert.equal(await checkpointIfDue(database.db, old), false);
    await writeWal(0.2);
    assert.equal(await checkpointIfDue(database.db, old), false);
    await writeWal(2);
    assert.equal(await checkpointIfDue(database.db, old), true);
  });

  it('the loop keeps pg_wal bounded while far more WAL is written than it holds', async () => {
    const stop = startCheckpoints(database.db, { everyMs: 10, limits: { walBytes: 8 * MB, maxAgeSeconds: never, minWalBytes: never } });
    try {
      let written = 0;
      for (let i = 0; i < 16; i++) {
        const from = await walSinceCheckpoint(database.db);
        await writeWal(12);
        written += (await walSinceCheckpoint(database.db)).bytes - from.bytes;
        // The loop's turn comes between statements (a timer): each step ends past the limit.
        await sleep(40);
      }
      // Without checkpoints every segment written stays: ~11 of 16 MB here. With them PostgreSQL
      // keeps min_wal_size (80 MB: 5 segments) for reuse, the current one and the next.
      assert.ok(written > 150 * MB, `${Math.round(written / MB)} MB of WAL written`);
      assert.ok(segments() <= 8, `${segments()} segments in pg_wal`);
    } finally {
      await stop();
    }
  });
});
