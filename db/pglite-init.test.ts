import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { ensurePgliteDatabase } from './pglite-init';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-pglite-init-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('a new PGlite database is made by a process of its own', () => {
  it('an empty data dir gets a complete database, with nothing left beside it; this process stays small', async () => {
    const pgdata = path.join(root, 'fresh', 'pgdata');
    const before = process.memoryUsage().external;
    await ensurePgliteDatabase(pgdata, ['-c', 'shared_buffers=32MB']);
    // initdb grows the WebAssembly memory by hundreds of MB; it happened elsewhere.
    assert.ok(process.memoryUsage().external - before < 50 * 1024 ** 2);
    assert.ok(fs.existsSync(path.join(pgdata, 'PG_VERSION')));
    assert.deepEqual(fs.readdirSync(path.dirname(pgdata)), ['pgdata']);
    const db = await PGlite.create(pgdata);
    try {
      assert.deepEqual((await db.query<{ n: number }>('select 1 as n')).rows, [{ n: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('a data dir that holds a database is left as it is', async () => {
    const pgdata = path.join(root, 'fresh', 'pgdata');
    const version = path.join(pgdata, 'PG_VERSION');
    const stamp = fs.statSync(version).mtimeMs;
    await ensurePgliteDatabase(pgdata, []);
    assert.equal(fs.statSync(version).mtimeMs, stamp);
  });

  it('a creation that fails says why and leaves no data dir behind', async () => {
    const pgdata = path.join(root, 'failing', 'pgdata');
    await assert.rejects(ensurePgliteDatabase(pgdata, ['-c', 'shared_buffers=nonsense']), /PGlite could not create its database/);
    assert.deepEqual(fs.readdirSync(path.dirname(pgdata)), []);
  });
});
