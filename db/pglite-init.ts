import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// PGlite makes a new database (its initdb) inside the process that first opens an empty data
// dir, and the WebAssembly memory initdb grows to is never given back: a process that began on
// an empty data dir held ~450 MB more for its whole life (RSS 665 MB right after opening, against
// 214 MB for the same database opened again; measured 2026-11-27, docs/concurrency.md). So the
// database is made by a short-lived process of its own, in a directory beside the data dir that
// is renamed into place once complete (a creation that died half-way is never opened), and the
// server then opens it as any later start does.

/** Makes PGlite's database in `pgdata` unless it holds one (its PG_VERSION file). */
export async function ensurePgliteDatabase(pgdata: string, startParams: readonly string[]): Promise<void> {
  if (fs.existsSync(path.join(pgdata, 'PG_VERSION'))) return;
  // A data dir that exists with something else in it is left to PGlite, as before.
  if (fs.existsSync(pgdata) && fs.readdirSync(pgdata).length > 0) return;
  fs.mkdirSync(path.dirname(pgdata), { recursive: true });
  const building = fs.mkdtempSync(`${pgdata}.creating-`);
  try {
    await createIn(building, startParams);
    fs.rmSync(pgdata, { recursive: true, force: true });
    fs.renameSync(building, pgdata);
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
}

function createIn(dir: string, startParams: readonly string[]): Promise<void> {
  const pgliteUrl = import.meta.resolve('@electric-sql/pglite');
  const code = `const { PGlite } = await import(${JSON.stringify(pgliteUrl)});
const db = await PGlite.create(${JSON.stringify(dir)}, { startParams: [...PGlite.defaultStartParams, ...${JSON.stringify(startParams)}] });
await db.close();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => {
      if (exitCode === 0) return resolve();
      const why = stderr.trim().split('\n').slice(-3).join(' ') || `exit ${exitCode ?? signal}`;
      reject(new Error(`PGlite could not create its database in ${dir}: ${why}`));
    });
  });
}
