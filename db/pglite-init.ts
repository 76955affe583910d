import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { secureDataDir } from './lock';
import { DEFAULT_TEMPLATE_DIR, ensureTemplate, runBuilder, type BuildTimings } from './pglite-template';

// A new embedded database is a copy of the installation's migrated template (db/pglite-template.ts),
// built first when there is none. PGlite makes a database from nothing (its initdb) inside the
// process that first opens an empty data dir, and the WebAssembly memory initdb grows to is never
// given back: a process that began on an empty data dir held ~450 MB more for its whole life (RSS
// 665 MB right after opening, against 214 MB for the same database opened again; measured
// 2026-11-27, docs/concurrency.md). So the template is built by a short-lived process of its own,
// and the server opens the copy as any later start does. The copy is made in a directory beside
// `pgdata` and renamed into place once complete: a creation that died half-way is never opened
// (the next start removes what it left).

/** PostgreSQL settings the embedded database runs with (db/client.ts); the template is built with them too. */
// shared_buffers 32 MB, not PostgreSQL's 128 MB: PGlite's WebAssembly memory holds them whole, and
// a process's RSS is what a laptop and a small host feel (docs/concurrency.md, "Memory per run");
// the pages they would hold are in the OS's page cache anyway.
export const PGLITE_START_PARAMS: readonly string[] = ['-c', 'shared_buffers=32MB'];

/** What making the database took; `undefined` from ensurePgliteDatabase when there was one already. */
export interface CreatedDatabase {
  /** `template`: copied from the template; `built`: built in place (the template's directory could not be written). */
  from: 'template' | 'built';
  /** The template's (or the in-place) build, when this process ran one. */
  build?: BuildTimings;
  /** Copying the template into the data dir. */
  copyMs?: number;
  /** The whole creation, waiting for another process's build included. */
  ms: number;
}

export interface EnsureOptions {
  startParams?: readonly string[];
  /** Where the templates live (PGLITE_TEMPLATE_DIR; default `.next/cache/pglite-template`), relative to the working directory. */
  templateDir?: string;
}

/**
 * Makes the database in `pgdata` unless it holds one (its PG_VERSION file). The caller holds the
 * data dir's lock (db/lock.ts), so what an earlier creation left beside `pgdata` is dead.
 */
export async function ensurePgliteDatabase(pgdata: string, opts: EnsureOptions = {}): Promise<CreatedDatabase | undefined> {
  if (fs.existsSync(path.join(pgdata, 'PG_VERSION'))) return undefined;
  // A data dir that exists with something else in it is left to PGlite, as before.
  if (fs.existsSync(pgdata) && fs.readdirSync(pgdata).length > 0) return undefined;
  const started = performance.now();
  const parent = path.dirname(pgdata);
  fs.mkdirSync(parent, { recursive: true });
  const leftover = `${path.basename(pgdata)}.creating-`;
  for (const name of fs.readdirSync(parent)) if (name.startsWith(leftover)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });

  const startParams = opts.startParams ?? PGLITE_START_PARAMS;
  const template = await ensureTemplate({ dir: opts.templateDir ?? DEFAULT_TEMPLATE_DIR, startParams }).catch((err: NodeJS.ErrnoException) => {
    // A read-only installation (or a file in the way): every new data dir is built in place.
    if (err.code && ['EACCES', 'EROFS', 'EPERM', 'ENOTDIR', 'EEXIST'].includes(err.code)) return undefined;
    throw err;
  });
  const building = fs.mkdtempSync(path.join(parent, leftover));
  try {
    let created: CreatedDatabase;
    if (template) {
      const copying = performance.now();
      await copyDir(template.pgdata, building);
      created = { from: 'template', build: template.built, copyMs: Math.round(performance.now() - copying), ms: 0 };
    } else {
      fs.rmdirSync(building);
      created = { from: 'built', build: await runBuilder(building, startParams), ms: 0 };
    }
    secureDataDir(building);
    fs.rmSync(pgdata, { recursive: true, force: true });
    fs.renameSync(building, pgdata);
    return { ...created, ms: Math.round(performance.now() - started) };
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
}

/**
 * Copies a directory on a thread of its own, with fs.cpSync (native): the server answers requests
 * and loads its code meanwhile. Some 1,200 files: 0.3–0.5 s on this 2-core machine at load 4,
 * where fs.promises.cp took twice as long on the event loop itself. A clone where the file system
 * can (btrfs, XFS), a copy otherwise.
 */
function copyDir(from: string, to: string): Promise<void> {
  const code = `const { cpSync, constants } = require('node:fs');
const { from, to } = require('node:worker_threads').workerData;
cpSync(from, to, { recursive: true, mode: constants.COPYFILE_FICLONE });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { from, to } });
    worker.once('error', reject);
    worker.once('exit', (exitCode) => (exitCode === 0 ? resolve() : reject(new Error(`Copying ${from} to ${to} stopped (${exitCode})`))));
  });
}

/** One sentence on how the database was made, for the start-up line. */
export function describeCreation(c: CreatedDatabase): string {
  const build = c.build
    ? `the migrated template built in ${c.build.total} ms (initdb ${c.build.initdb} ms, migrations ${c.build.migrations} ms, pg-boss ${c.build.jobs} ms)`
    : undefined;
  if (c.from === 'built') return `created in ${c.ms} ms: ${build} in place (no writable template directory)`;
  return `created in ${c.ms} ms from ${build ? `${build}, then copied in ${c.copyMs} ms` : `the installation's migrated template (copied in ${c.copyMs} ms)`}`;
}
