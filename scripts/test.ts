import { execSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bundleTests } from './test-bundle';

// `npm test`: unit tests and API integration tests on PGlite, then the integration tests again
// on PostgreSQL (plus the two-process test), with Node's own test runner. Starts PostgreSQL and
// Redis when they are not running. The test files run compiled (scripts/test-bundle.ts;
// `TEST_BUNDLE=0` runs them through tsx). Ends with the 10 slowest files (TEST_DURATIONS_OUT=<file>
// writes every file's time) and one line: `tests: N passed, N failed`.

const ROOT = path.resolve(import.meta.dirname, '..');
const SKIP_DIRS = new Set(['node_modules', '.next', '.data', '.git', 'e2e', 'test-results', 'playwright-report']);
// Files that need PostgreSQL and several processes: run once, in the PostgreSQL pass.
const MULTIPROCESS = new Set([
  path.join('test', 'multiprocess.int.test.ts'),
  path.join('test', 'executions', 'scale-out.int.test.ts'),
  path.join('test', 'executions', 'fairness-processes.int.test.ts'),
  path.join('test', 'webhooks', 'processes.int.test.ts'),
  path.join('test', 'usage', 'processes.int.test.ts'),
  path.join('test', 'schedules', 'processes.int.test.ts'),
  // 2 web + 1 or 2 workers each: up to ~60 connections, so never beside another multi-process file.
  path.join('test', 'executions', 'approvals-scale.int.test.ts'),
  path.join('test', 'budgets', 'budgets-scale.int.test.ts'),
]);

// Test files run at once (TEST_CONCURRENCY overrides both). Three on PGlite with 2 cores: a file
// spends much of its time waiting (on its server, child processes, timers); at 2 the run used
// ~1.1 cores. On PostgreSQL a server holds ~16 connections and a multi-process file up to 50:
// three files of any kind at once passed the server's 100 (500s, seen), and two left a third of
// the 2 cores idle. So the PostgreSQL pass runs two runners side by side: the multi-process
// files one at a time, the others two at a time (≤ 50 + 2 × 16 connections).
const CONCURRENCY = { pglite: Number(process.env.TEST_CONCURRENCY ?? 3), postgres: Number(process.env.TEST_CONCURRENCY ?? 2) };
// TEST_PASS=pglite or postgres: that pass alone (a developer's shortcut; `npm test` runs both).
const PASSES = (process.env.TEST_PASS ?? 'pglite,postgres').split(',');

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

// The slowest files (the list `npm test` ends with) start first: started last, one of them ran
// on alone at the end of a pass while the other slot had nothing left to do.
const SLOW_FIRST = [
  // Waits for a real minute boundary (up to 60 s, mostly idle): started first, it overlaps the rest.
  'test/schedules/processes.int.test.ts',
  'test/lifecycle.int.test.ts',
  // Waits out a 429's Retry-After of up to a minute (mostly idle).
  'test/sdk/client.int.test.ts',
  'test/webhooks/private-urls.int.test.ts',
  'test/executions/streams.int.test.ts',
  'test/webhooks/delivery.int.test.ts',
  'test/executions/scale-out.int.test.ts',
  'test/executions/fairness-processes.int.test.ts',
  'test/usage/processes.int.test.ts',
  'test/webhooks/processes.int.test.ts',
  'test/usage/executions.int.test.ts',
  'test/start.int.test.ts',
  'test/multiprocess.int.test.ts',
].map((f) => path.join(...f.split('/')));
const slowFirst = (files: string[]) => [...SLOW_FIRST.filter((f) => files.includes(f)), ...files.filter((f) => !SLOW_FIRST.includes(f))];

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

interface Totals {
  passed: number;
  failed: number;
  exitCode: number;
  /** Wall time of each file, and of its top-level tests, in ms. */
  durations: { file: string; ms: number; tests: number }[];
}

/**
 * Each file's wall time and its top-level tests' (file-durations.mjs's records: `file` is the
 * path the runner ran, `source` the absolute path a test was declared in).
 */
function fileDurations(records: { file?: string; source?: string; ms: number }[], source: Map<string, string>): Totals['durations'] {
  const tests = new Map<string, number>();
  for (const r of records) {
    if (!r.source) continue;
    const file = path.relative(ROOT, r.source);
    tests.set(file, (tests.get(file) ?? 0) + r.ms);
  }
  return records.flatMap((r) => {
    if (!r.file) return [];
    const file = source.get(r.file) ?? r.file;
    return [{ file, ms: r.ms, tests: tests.get(file) ?? 0 }];
  });
}

interface RunOptions {
  env: { TEST_DB: 'pglite' | 'postgres' };
  concurrency: number;
  /** Maps a source to the file that runs (the source itself without a bundle). */
  compiled: Map<string, string>;
  /** A run beside another: its report is printed when it ends rather than interleaved. */
  beside?: boolean;
}

/** Runs files under node's test runner; reads the counts from a TAP copy of the report. */
function run(label: string, files: string[], { env, concurrency, compiled, beside }: RunOptions): Promise<Totals> {
  const tap = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'aas-tap-')), 'report.tap');
  const durations = path.join(path.dirname(tap), 'durations.jsonl');
  const spec = beside ? path.join(path.dirname(tap), 'report.txt') : 'stdout';
  console.log(`\n── ${label}: ${files.length} files${beside ? ' (its report when it ends)' : ''} ──`);
  const source = new Map([...compiled].map(([src, out]) => [out, src]));
  const args = [
    ...(compiled.size ? ['--enable-source-maps'] : ['--import', 'tsx']),
    '--test', `--test-concurrency=${concurrency}`,
    '--test-reporter=spec', `--test-reporter-destination=${spec}`,
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    `--test-reporter=${path.join(ROOT, 'scripts', 'file-durations.mjs')}`, `--test-reporter-destination=${durations}.out`,
    ...files.map((f) => compiled.get(f) ?? f),
  ];
  return new Promise((resolve) => {
    // NODE_COMPILE_CACHE: V8's code for every module a test process (and a server it starts) loads
    // is kept between processes and runs, as launch.js does for `npm start`: ~0.1 s of CPU a process.
    const cache = process.env.NODE_COMPILE_CACHE ?? path.join(ROOT, '.cache', 'node-compile');
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env, FILE_DURATIONS_OUT: durations, NODE_COMPILE_CACHE: cache } });
    child.on('exit', (code, signal) => {
      const text = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
      const lines = fs.existsSync(durations) ? fs.readFileSync(durations, 'utf8').split('\n').filter(Boolean) : [];
      if (beside) console.log(`\n── ${label}: report ──\n${fs.existsSync(spec) ? fs.readFileSync(spec, 'utf8') : ''}`);
      fs.rmSync(path.dirname(tap), { recursive: true, force: true });
      const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      resolve({
        passed: count('pass'),
        failed: count('fail') + count('cancelled'),
        exitCode: code ?? (signal ? 1 : 0),
        durations: fileDurations(lines.map((l) => JSON.parse(l) as { file?: string; source?: string; ms: number }), source),
      });
    });
  });
}

async function main() {
  const started = Date.now();
  // Before anything reads os.tmpdir() (the templates below, every test process after).
  process.env.TMPDIR = testTmpdir();
  const all = findTests(ROOT);
  const integration = all.filter((f) => f.endsWith('.int.test.ts'));
  const unit = all.filter((f) => !f.endsWith('.int.test.ts'));
  const everywhere = integration.filter((f) => !MULTIPROCESS.has(f));

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

  const outdir = buildDir();
  let compiled = new Map<string, string>();
  if (process.env.TEST_BUNDLE !== '0') {
    const t = Date.now();
    compiled = await bundleTests(ROOT, all, outdir);
    console.log(`compiled ${all.length} test files in ${((Date.now() - t) / 1000).toFixed(1)} s (TEST_BUNDLE=0 runs the sources)`);
  }
  const runs: (Totals & { db: string })[] = [];
  if (PASSES.includes('pglite')) {
    const env = { TEST_DB: 'pglite' } as const;
    runs.push({ db: 'PGlite', ...(await run('unit + integration on PGlite', slowFirst([...unit, ...everywhere]), { env, concurrency: CONCURRENCY.pglite, compiled })) });
  }
  if (PASSES.includes('postgres')) {
    const env = { TEST_DB: 'postgres' } as const;
    // The multi-process files are about a quarter of the pass's file time; the runner that has
    // them (one slot of three) also takes every sixth of the others, so that both end together.
    const others = slowFirst(everywhere);
    const beside = [...slowFirst(integration.filter((f) => MULTIPROCESS.has(f))), ...others.filter((_, i) => i % 6 === 5)];
    const pair = await Promise.all([
      run('integration on PostgreSQL', others.filter((f) => !beside.includes(f)), { env, concurrency: CONCURRENCY.postgres, compiled }),
      run('multi-process (and some other) integration on PostgreSQL', beside, { env, concurrency: 1, compiled, beside: true }),
    ]);
    runs.push(...pair.map((r) => ({ db: 'PostgreSQL', ...r })));
  }
  if (outdir !== SHARED_BUILD) fs.rmSync(outdir, { recursive: true, force: true });
  const passed = runs.reduce((n, r) => n + r.passed, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  const crashed = runs.some((r) => r.exitCode !== 0);
  const durations = runs.flatMap((r) => r.durations.map((d) => ({ ...d, db: r.db }))).sort((a, b) => b.ms - a.ms);
  // TEST_DURATIONS_OUT=<file>: every file's wall time, as JSON.
  if (process.env.TEST_DURATIONS_OUT) fs.writeFileSync(process.env.TEST_DURATIONS_OUT, JSON.stringify(durations, null, 1));
  console.log('\nslowest files:');
  for (const d of durations.slice(0, 10)) console.log(`  ${(d.ms / 1000).toFixed(1).padStart(6)} s  ${d.file} (${d.db})`);
  // A file whose process outlives its tests by long holds a slot for nothing: a timer or a
  // socket it left open (seen: 60 and 100 s). Its file-level hooks (a server's start) and its
  // loading count too, a few seconds each under load. Named here so that it gets mended.
  const lingering = durations.filter((d) => d.ms - d.tests > 20_000);
  if (lingering.length) console.log('\nfiles that took 20 s or more beyond their tests (a timer or socket left open?):');
  for (const d of lingering) console.log(`  ${((d.ms - d.tests) / 1000).toFixed(1).padStart(6)} s  ${d.file} (${d.db})`);
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  if (failed > 0 || crashed || passed === 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  console.log('tests: 0 passed, 1 failed');
  process.exitCode = 1;
});
