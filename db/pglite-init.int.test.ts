// test: pglite — the embedded database itself, on no server: runs in the PGlite pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { ensurePgliteDatabase } from './pglite-init';
import { templateKey } from './pglite-template';

// A new embedded database is a copy of the installation's migrated template, built once by a
// process of its own (db/pglite-template.ts); these tests keep their templates in a directory of
// their own, never the installation's (.next/cache/pglite-template).

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-pglite-init-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const templateDir = path.join(root, 'templates');
const key = templateKey();

async function tables(pgdata: string): Promise<string[]> {
  const db = await PGlite.create(pgdata);
  try {
    const { rows } = await db.query<{ name: string }>(
      "select table_schema || '.' || table_name as name from information_schema.tables where table_name in ('agents', '__drizzle_migrations', 'job') order by 1",
    );
    return rows.map((r) => r.name);
  } finally {
    await db.close();
  }
}

describe('a new embedded database is a copy of the migrated template', () => {
  it('two data dirs at once, after a crash: the template is built once (by a process of its own), each gets a migrated copy; what the crash left is cleared', async () => {
    // What a crash left, never to be taken for complete: a half-built template under a lock whose
    // process is gone (a pid that cannot be alive), a half-made copy beside a data dir.
    fs.mkdirSync(path.join(templateDir, `${key}.build-dead`, 'pgdata'), { recursive: true });
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.once('exit', resolve));
    fs.writeFileSync(path.join(templateDir, `${key}.lock`), String(dead.pid));
    fs.mkdirSync(path.join(templateDir, '0123456789abcdef', 'pgdata'), { recursive: true }); // older migrations' template
    fs.mkdirSync(path.join(root, 'a', 'pgdata.creating-dead'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a', 'pgdata.creating-dead', 'PG_VERSION'), '18');

    const before = process.memoryUsage().external;
    const [a, b] = await Promise.all(['a', 'b'].map((name) => ensurePgliteDatabase(path.join(root, name, 'pgdata'), { templateDir })));
    // initdb grows the WebAssembly memory by hundreds of MB; it happened elsewhere.
    assert.ok(process.memoryUsage().external - before < 50 * 1024 ** 2);
    assert.equal([a, b].filter((c) => c?.build).length, 1, 'one of them built the template (taking over the dead lock), the other waited for it');
    for (const c of [a, b]) assert.equal(c?.from, 'template');
    const built = (a?.build ? a : b)!.build!;
    assert.ok(built.initdb > 0 && built.migrations > 0 && built.total >= built.initdb + built.migrations, JSON.stringify(built));
    assert.deepEqual(fs.readdirSync(templateDir), [key], 'the template alone: no lock, no build directory, no older template');
    for (const name of ['a', 'b']) {
      assert.deepEqual(fs.readdirSync(path.join(root, name)), ['pgdata']);
      assert.deepEqual(await tables(path.join(root, name, 'pgdata')), ['drizzle.__drizzle_migrations', 'pgboss.job', 'public.agents']);
      assert.equal(fs.statSync(path.join(root, name, 'pgdata', 'PG_VERSION')).mode & 0o777, 0o600, 'only the owner reads it');
    }
    const later = await ensurePgliteDatabase(path.join(root, 'c', 'pgdata'), { templateDir });
    assert.equal(later?.build, undefined, 'a later data dir copies the template as it is');
  });

  it('a data dir that holds a database is left as it is', async () => {
    const pgdata = path.join(root, 'a', 'pgdata');
    const version = path.join(pgdata, 'PG_VERSION');
    const stamp = fs.statSync(version).mtimeMs;
    assert.equal(await ensurePgliteDatabase(pgdata, { templateDir }), undefined);
    assert.equal(fs.statSync(version).mtimeMs, stamp);
  });

  it('a build that fails says why, and leaves no data dir, template or lock behind', async () => {
    const dirs = path.join(root, 'failing-templates');
    const pgdata = path.join(root, 'failing', 'pgdata');
    await assert.rejects(
      ensurePgliteDatabase(pgdata, { templateDir: dirs, startParams: ['-c', 'shared_buffers=nonsense'] }),
      /PGlite could not create its database/,
    );
    assert.deepEqual(fs.readdirSync(path.dirname(pgdata)), []);
    assert.deepEqual(fs.readdirSync(dirs), []);
  });

  it('where templates cannot be written (read-only, or a file in the way), the database is built in place', async () => {
    const blocked = path.join(root, 'not-a-directory');
    fs.writeFileSync(blocked, '');
    const created = await ensurePgliteDatabase(path.join(root, 'in-place', 'pgdata'), { templateDir: path.join(blocked, 'templates') });
    assert.equal(created?.from, 'built');
    assert.ok(created.build!.migrations > 0);
    assert.deepEqual(fs.readdirSync(path.join(root, 'in-place')), ['pgdata']);
    assert.deepEqual(await tables(path.join(root, 'in-place', 'pgdata')), ['drizzle.__drizzle_migrations', 'pgboss.job', 'public.agents']);
  });
});
