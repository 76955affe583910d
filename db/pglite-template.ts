import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { alive, secureDataDir } from './lock';

// The embedded database's migrated template, built once per installation and set of migrations
// (docs/decisions.md, "Start-up"). Making a database from nothing is PGlite's initdb, the
// migrations and pg-boss's schema: 17–23 s of the first start on a busy 2-core machine, 6–7 s
// idle. A new data dir is a copy of this template instead (a few hundred ms), as each test
// file's has long been (test/harness.ts).
//
// `<dir>/<key>/pgdata` is the template, where `key` names the migrations, the builder and the
// versions of PGlite and pg-boss: a template of other migrations has another name and is never
// used (the newest build prunes the others). One process builds it at a time, under
// `<dir>/<key>.lock` (its pid); the others wait for it. It is built in `<dir>/<key>.build-…` and
// renamed into place when complete, so a build that died half-way is never copied.

/** Where the templates live unless PGLITE_TEMPLATE_DIR says otherwise: `next build` keeps `.next/cache`. */
export const DEFAULT_TEMPLATE_DIR = path.join('.next', 'cache', 'pglite-template');
/** The builder, run as a process of its own (it holds initdb's memory, not the caller). */
const BUILDER = 'db/pglite-template-build.js';
/** How long a process waits for another's build before giving up on the template (a stuck build, a reused pid). */
const WAIT_FOR_OTHER_MS = 5 * 60_000;

/** What a build took, by step (the builder's own clock). */
export interface BuildTimings {
  initdb: number;
  migrations: number;
  jobs: number;
  /** The whole build, the builder's start included. */
  total: number;
}

/**
 * A hash of what the template holds: every file under the migrations folder, the builder, and
 * the versions of PGlite (its data dir format) and pg-boss (its schema) with any patch of them.
 */
export function templateKey(root = process.cwd()): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else hash.update(`${path.relative(root, p)}\0`).update(fs.readFileSync(p)).update('\0');
    }
  };
  walk(path.join(root, 'db', 'migrations'));
  hash.update(fs.readFileSync(path.join(root, BUILDER))).update('\0');
  for (const pkg of ['@electric-sql/pglite', 'pg-boss']) {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string };
    hash.update(`${pkg} ${version}\0`);
  }
  // patch-package's changes to them (patches/<name>+<version>.patch), should there be any.
  const patches = path.join(root, 'patches');
  for (const name of fs.existsSync(patches) ? fs.readdirSync(patches).sort() : []) {
    if (/^(@electric-sql\+pglite|pg-boss)\+/.test(name)) hash.update(fs.readFileSync(path.join(patches, name))).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The template's `pgdata` directory, built first when there is none (or waiting for the process
 * that builds it); `built` says how long a build by this process took. Throws when the build
 * fails, or with the file system's error when `dir` cannot be written (a read-only installation).
 */
export async function ensureTemplate(opts: { dir: string; startParams: readonly string[]; root?: string }): Promise<{ pgdata: string; built?: BuildTimings }> {
  const root = opts.root ?? process.cwd();
  const key = templateKey(root);
  const dir = path.resolve(root, opts.dir);
  const template = path.join(dir, key);
  const pgdata = path.join(template, 'pgdata');
  if (complete(pgdata)) return { pgdata };
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, `${key}.lock`);
  const waitUntil = Date.now() + WAIT_FOR_OTHER_MS;
  for (;;) {
    if (takeLock(lock)) break;
    if (complete(pgdata)) return { pgdata };
    if (Date.now() > waitUntil) throw new Error(`Waited ${WAIT_FOR_OTHER_MS / 1000} s for another process to build the database template (${lock})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    // Another process may have finished it between our look and the lock.
    if (complete(pgdata)) return { pgdata };
    prune(dir, key);
    const building = fs.mkdtempSync(path.join(dir, `${key}.build-`));
    try {
      const built = await runBuilder(path.join(building, 'pgdata'), opts.startParams, root);
      // Its copies are data dirs: only their owner may read them (db/lock.ts).
      secureDataDir(building);
      try {
        fs.renameSync(building, template);
      } catch (err) {
        // Two processes took over one dead lock at once and both built it: the first one's stays.
        if (!complete(pgdata)) throw err;
      }
      return { pgdata, built };
    } finally {
      fs.rmSync(building, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/**
 * Builds a migrated database in `pgdata` (which must not exist), in a process of its own;
 * resolves with what each step took. Also used directly when there can be no template.
 */
export function runBuilder(pgdata: string, startParams: readonly string[], root = process.cwd()): Promise<BuildTimings> {
  const started = performance.now();
  const args = [path.join(root, BUILDER), pgdata, path.join(root, 'db', 'migrations'), JSON.stringify(startParams)];
  return new Promise((resolve, reject) => {
    // With the parent's `--liftoff-only` when it has it (the test runners: docs/testing.md).
    const flags = process.execArgv.filter((a) => a === '--liftoff-only');
    const child = spawn(process.execPath, [...flags, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => {
      if (exitCode === 0) {
        const timings = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Omit<BuildTimings, 'total'>;
        return resolve({ ...timings, total: Math.round(performance.now() - started) });
      }
      const why = stderr.trim().split('\n').slice(-3).join(' ') || `exit ${exitCode ?? signal}`;
      reject(new Error(`PGlite could not create its database in ${pgdata}: ${why}`));
    });
  });
}

/** A template is complete once renamed into place; PG_VERSION is the sign of a database in it. */
const complete = (pgdata: string) => fs.existsSync(path.join(pgdata, 'PG_VERSION'));

/** Takes the build lock (our pid in it), taking over one whose process is gone; false while a live process holds it. */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = holder(lock);
    if (held === 'alive') return false;
    if (held === 'dead') fs.rmSync(lock, { force: true });
  }
  return false;
}

/** Whether the process named in a lock file lives (a file still empty is being written: alive for a while). */
function holder(lock: string): 'alive' | 'dead' | 'gone' {
  let text: string;
  let mtimeMs: number;
  try {
    text = fs.readFileSync(lock, 'utf8');
    mtimeMs = fs.statSync(lock).mtimeMs;
  } catch {
    return 'gone';
  }
  const pid = Number(text);
  if (Number.isInteger(pid) && pid > 0) return alive(pid) ? 'alive' : 'dead';
  return Date.now() - mtimeMs < 10_000 ? 'alive' : 'dead';
}

/**
 * Under the lock of `key`: removes what a build of it that died left, and the templates of other
 * keys (older migrations) with what they left, unless a live process holds their lock. A process
 * already running copied its data dir when it started.
 */
function prune(dir: string, key: string): void {
  const building = (k: string) => holder(path.join(dir, `${k}.lock`)) === 'alive';
  for (const name of fs.readdirSync(dir)) {
    const [, k, rest] = /^([0-9a-f]{16})(.*)$/.exec(name) ?? [];
    if (!k) continue; // not ours
    if (k === key ? rest!.startsWith('.build-') : !building(k)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}
