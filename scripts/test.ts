import { execSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bundleTests } from './test-bundle';
import { order, placement as placementOf, WAITING, type Placement } from './test-plan';
import { jobName, runPool, type Job } from './test-pool';

// `npm test`: the unit files, and the integration files on PGlite and on PostgreSQL as each file's
// first line places it (scripts/test-plan.ts), in one pool of slots (scripts/test-pool.ts: four
// slots, TEST_CONCURRENCY), with Node's own test runner (docs/testing.md). Starts
// PostgreSQL and Redis when they are not running. The test files run compiled
// (scripts/test-bundle.ts; `TEST_BUNDLE=0` runs them through tsx). Ends with the 10 slowest files (TEST_DURATIONS_OUT=<file>
// writes every file's time) and one line: `tests: N passed, N failed`.

const ROOT = path.resolve(import.meta.dirname, '..');
const SKIP_DIRS = new Set(['node_modules', '.next', '.data', '.git', '.cache', 'e2e', 'test-results', 'playwright-report']);

// TEST_PASS=pglite or postgres: that pass alone (a developer's shortcut; `npm test` runs both).
// `npm run test:unit` (scripts/test.ts unit): the unit files alone, no database, no server.
const UNIT_ONLY = process.argv[2] === 'unit';
/**
 * Files that share one process and server (`shared`, docs/testing.md): each saves a process and a
 * server's start (~1.3 s of CPU on PostgreSQL, ~2 s on PGlite, and a database's copy), and the
 * files of a group run one after another, so a group of six stays well within the others' time.
 */
const SHARED_FILES = 6;
const PASSES = UNIT_ONLY ? ['unit'] : (process.env.TEST_PASS ?? 'pglite,postgres').split(',');

/**
 * Where the tests' temporary files go (TMPDIR of every test process): each PGlite test file
 * copies the migrated template (41 MB) into a data dir of its own, ~8 GB written per run, and
 * on a disk the kernel's write-back of those pages throttled the copies under load (0.05 s
 * alone, 0.4–0.6 s of CPU each in a full run). A memory file system (/dev/shm) writes nothing
 * back. Each file removes what it made, as in /tmp; the migrated templates stay there for the
 * next run. TEST_TMPDIR chooses another place; without /dev/shm (or under 2 GB free in it), the
 * system's temporary directory.
 */
function testTmpdir(): string {
  if (process.env.TEST_TMPDIR) return process.env.TEST_TMPDIR;
  try {
    const shm = fs.statfsSync('/dev/shm');
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    if (shm.bavail * shm.bsize > 2 * 1024 ** 3) return '/dev/shm';
  } catch {
    // no /dev/shm here
  }
  return os.tmpdir();
}

function findTests(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) findTests(path.join(dir, entry.name), out);
    } else if (entry.name.endsWith('.test.ts')) {
      out.push(path.relative(ROOT, path.join(dir, entry.name)));
    }
  }
  return out.sort();
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function ensureService(name: string, port: number, start: string): Promise<void> {
  if (await reachable(port)) return;
  console.log(`${name} is not running on 127.0.0.1:${port}; starting it: ${start}`);
  execSync(start, { stdio: 'inherit', shell: '/bin/bash' });
  for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await reachable(port))) throw new Error(`${name} did not come up on port ${port}`);
}

// Where the compiled tests go: one place per checkout, so that Node's compile cache (below) finds
// the same files run after run; a second `npm test` at once in the same checkout uses a place of
// its own (the first one's lock is its pid).
const SHARED_BUILD = path.join(ROOT, '.cache', 'test-build');
function buildDir(): string {
  const lock = `${SHARED_BUILD}.pid`;
  const holder = fs.existsSync(lock) ? Number(fs.readFileSync(lock, 'utf8')) : 0;
  const alive = holder > 0 && holder !== process.pid && (() => {
    try {
      process.kill(holder, 0);
      return true;
    } catch {
      return false;
    }
  })();
  if (alive) return path.join(ROOT, '.cache', `test-build-${process.pid}`);
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  fs.writeFileSync(lock, String(process.pid));
  process.once('exit', () => fs.rmSync(lock, { force: true }));
  return SHARED_BUILD;
}

async function main() {
  const started = Date.now();
  // Before anything reads os.tmpdir() (the templates below, every test process after).
  process.env.TMPDIR = testTmpdir();
  // TEST_FILTER=<regular expression>: the files whose path matches it (a developer's shortcut).
  const filter = process.env.TEST_FILTER ? new RegExp(process.env.TEST_FILTER) : undefined;
  const all = findTests(ROOT).filter((f) => !filter || filter.test(f));
  // Each file's first line, read once.
  const placed = new Map(all.map((f) => [f, placementOf(ROOT, f)]));
  const files = order(all, (f) => placed.get(f)!.placement === 'processes');
  const unit = all.filter((f) => !f.endsWith('.int.test.ts'));

  if (!UNIT_ONLY) {
    await ensureService('PostgreSQL', 5432, 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start');
    await ensureService('Redis', 6379, 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no');
    // The migrated templates every test file's database is copied from (test/harness.ts), made
    // here once rather than by the first test files at once.
    const { pgliteTemplate, postgresTemplate } = await import('../test/harness');
    // And the compiled server the multi-process tests start (test/processes.ts), compiled here once
    // rather than by the first servers at once.
    const { ensureServerBundle } = await import('../server/processes/server-bundle.js');
    const { sourceFingerprint } = await import('../server/processes/source-fingerprint.js');
    await Promise.all([pgliteTemplate(), postgresTemplate(), ensureServerBundle({ fingerprint: sourceFingerprint(), root: ROOT })]);
  }

  const outdir = buildDir();
  let compiled = new Map<string, string>();
  if (process.env.TEST_BUNDLE !== '0') {
    const t = Date.now();
    const sources = UNIT_ONLY ? unit : all;
    compiled = await bundleTests(ROOT, sources, outdir);
    console.log(`compiled ${sources.length} test files in ${((Date.now() - t) / 1000).toFixed(1)} s (TEST_BUNDLE=0 runs the sources)`);
  }
  const slots = Number(process.env.TEST_CONCURRENCY ?? 4);
  const jobs: Job[] = [];
  // Files marked `shared` (and the unit files) share processes, a few at a time (groups below).
  const groups = new Map<string, Job>();
  const want = (db: 'pglite' | 'postgres') => PASSES.includes(db);
  const add = (file: string, db: 'pglite' | 'postgres', placement: Placement, shared: boolean) => {
    if (!shared) return jobs.push({ files: [file], db, placement, beside: WAITING.includes(file) });
    const key = `${placement} ${db}`;
    const group = groups.get(key) ?? { files: [], db, placement };
    if (group.files.length === 0) jobs.push(group);
    group.files.push(file);
    // A group holds up to SHARED_FILES files (the unit files: a third each), then another starts.
    groups.set(key, group.files.length >= (placement === 'unit' ? Math.ceil(unit.length / slots) : SHARED_FILES) ? { files: [], db, placement } : group);
  };
  for (const file of files) {
    const { placement, shared } = placed.get(file)!;
    if (placement === 'unit') {
      if (UNIT_ONLY || want('pglite')) add(file, 'pglite', placement, shared);
      continue;
    }
    if (UNIT_ONLY) continue;
    if ((placement === 'both' || placement === 'pglite') && want('pglite')) add(file, 'pglite', placement, shared);
    if (placement !== 'pglite' && want('postgres')) add(file, 'postgres', placement, shared);
  }
  console.log(`\n── ${jobs.reduce((n, j) => n + j.files.length, 0)} test files (${jobs.length} processes) in ${slots} slots (${PASSES.join(', ')}); each report when its file ends ──`);
  const results = await runPool(jobs, { slots, root: ROOT, compiled });
  const runs = [{
    passed: results.reduce((n, r) => n + r.passed, 0),
    failed: results.reduce((n, r) => n + r.failed, 0),
    exitCode: results.some((r) => r.exitCode !== 0) ? 1 : 0,
    durations: results.map((r) => ({ file: jobName(r.job), ms: r.ms, tests: r.tests, cpu: r.cpu, db: r.job.placement === 'unit' ? 'unit' : r.job.db === 'pglite' ? 'PGlite' : 'PostgreSQL' })),
  }];
  if (outdir !== SHARED_BUILD) fs.rmSync(outdir, { recursive: true, force: true });
  const passed = runs.reduce((n, r) => n + r.passed, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  const crashed = runs.some((r) => r.exitCode !== 0);
  const durations = runs.flatMap((r) => r.durations).sort((a, b) => b.ms - a.ms);
  // TEST_DURATIONS_OUT=<file>: every file's wall time, as JSON.
  if (process.env.TEST_DURATIONS_OUT) fs.writeFileSync(process.env.TEST_DURATIONS_OUT, JSON.stringify(durations, null, 1));
  console.log('\nslowest files:');
  for (const d of durations.slice(0, 10)) console.log(`  ${(d.ms / 1000).toFixed(1).padStart(6)} s  ${d.file} (${d.db})`);
  const cpuTotal = durations.reduce((n, d) => n + (d.cpu ?? 0), 0);
  console.log(`\nmost CPU (of ${(cpuTotal / 1000).toFixed(0)} s in all test processes and their children):`);
  for (const d of [...durations].sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, 10)) console.log(`  ${((d.cpu ?? 0) / 1000).toFixed(1).padStart(6)} s  ${d.file} (${d.db})`);
  // A file whose process outlives its tests by long holds a slot for nothing: a timer or a
  // socket it left open (seen: 60 and 100 s). Its file-level hooks (a server's start) and its
  // loading count too, a few seconds each under load. Named here so that it gets mended.
  const lingering = durations.filter((d) => d.ms - d.tests > 20_000);
  if (lingering.length) console.log('\nfiles that took 20 s or more beyond their tests (a timer or socket left open?):');
  for (const d of lingering) console.log(`  ${((d.ms - d.tests) / 1000).toFixed(1).padStart(6)} s  ${d.file} (${d.db})`);
  // The failures again, last, where a log cut to its tail still shows them.
  for (const r of results.filter((x) => x.failed > 0)) {
    console.log(`\nFAILED in ${jobName(r.job)} (${r.job.placement === 'unit' ? 'unit' : r.job.db === 'pglite' ? 'PGlite' : 'PostgreSQL'}):`);
    for (const f of r.failures) console.log(f.split('\n').map((l) => `  ${l}`).join('\n'));
  }
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  if (failed > 0 || crashed || passed === 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  console.log('tests: 0 passed, 1 failed');
  process.exitCode = 1;
});
