import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONNECTIONS_HELD, type Placement } from './test-plan';

// Runs test files in a pool of slots shared by both databases (docs/testing.md, "One pool"): each
// file in a node process of its own, as `node --test` isolates them, started as soon as a slot is
// free, the slowest first, so that no runner sits idle while another has a queue. Each file's
// report is printed whole when it ends (never interleaved), and its counts read from a TAP copy.

export interface Job {
  /** The source files (test/…/x.int.test.ts): one, or several that share a process (`shared`). */
  files: string[];
  db: 'pglite' | 'postgres';
  placement: Placement;
  /** Runs beside the slots (a file that mostly waits on a real clock: scripts/test-plan.ts `WAITING`). */
  beside?: boolean;
}

/** How a job is named in the reports: its file, or its files' count and names. */
export const jobName = (job: Job) => (job.files.length === 1 ? job.files[0]! : `${job.files.length} files in one process (${job.files.map((f) => path.basename(f, '.test.ts')).join(', ')})`);

export interface JobResult {
  job: Job;
  passed: number;
  failed: number;
  exitCode: number;
  /** Wall time of the file's process, ms. */
  ms: number;
  /** Its top-level tests' time, ms (the rest: loading, file-level hooks, what kept it open). */
  tests: number;
  /** CPU of the process and the children it waited for, ms (scripts/test-preload.mjs). */
  cpu?: number;
  /** Each failed test's TAP lines (`not ok` and its diagnostics), repeated at the very end of the run. */
  failures: string[];
}

/** The `not ok` entries of a TAP report with their YAML diagnostics, each cut to 40 lines. */
export function tapFailures(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)not ok \d+/.exec(lines[i]!);
    if (!m) continue;
    const block = [lines[i]!.trim()];
    for (let j = i + 1; j < lines.length && block.length < 40; j++) {
      const l = lines[j]!;
      if (!l.startsWith(`${m[1]}  `) || /^\s*(not )?ok \d+/.test(l)) break;
      block.push(l.slice(m[1]!.length));
    }
    // The test's diagnostics follow its block at its own indentation (test/processes.ts: its processes' warnings).
    let k = lines.findIndex((l, j) => j > i && !l.startsWith(`${m[1]}  `));
    for (; k > 0 && k < lines.length && lines[k]!.startsWith(`${m[1]}# `) && !lines[k]!.startsWith(`${m[1]}# Subtest`); k++) block.push(lines[k]!.slice(m[1]!.length));
    out.push(block.join('\n'));
  }
  return out;
}

export interface PoolOptions {
  slots: number;
  root: string;
  /** Maps a source to the file that runs (the source itself without a bundle). */
  compiled: Map<string, string>;
}

// PostgreSQL's connections (the server allows 100): a test server holds up to ~17, a file of
// several processes up to 68 — 4 processes (budgets-scale: 2 web + 2 workers) of 16 each (the
// pool's 10, pg-boss's 4, the LISTEN connection, the claims' connection of a process running
// workers: docs/concurrency.md, "Claims") and the test's own. Counted as 50, such a file ran
// beside two others and PostgreSQL answered 53300 "too many clients" (a fresh-clone CI run).
const CONNECTIONS: Record<Placement, number> = { unit: 0, both: 17, once: 17, postgres: 17, pglite: 0, processes: 68 };
// A file that starts server processes of its own without being a `processes` file is counted for
// what it holds (CONNECTIONS_HELD): counted as one server, test/secrets/processes.int.test.ts (two
// servers at once) met 53300 "too many clients" in a fresh-clone run. Headroom below 100 for the
// connections a file opens for a moment (the CLI's, a test's own).
const MAX_CONNECTIONS = 80;
const connectionsOf = (job: Job) =>
  job.db === 'postgres' ? Math.max(CONNECTIONS[job.placement], ...job.files.map((f) => CONNECTIONS_HELD[f] ?? 0)) : 0;
const slotsOf = (job: Job) => (job.beside ? 0 : job.placement === 'processes' ? 2 : 1);

export async function runPool(jobs: Job[], opts: PoolOptions): Promise<JobResult[]> {
  const queue = [...jobs];
  const results: JobResult[] = [];
  const running = new Set<Job>();
  let connections = 0;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-tap-'));
  // NODE_COMPILE_CACHE: V8's code for every module a test process (and a server it starts) loads
  // is kept between processes and runs, as launch.js does for `npm start`: ~0.1 s of CPU a process.
  const cache = process.env.NODE_COMPILE_CACHE ?? path.join(opts.root, '.cache', 'node-compile');
  let n = 0;

  await new Promise<void>((resolve) => {
    const next = () => {
      if (queue.length === 0 && running.size === 0) return resolve();
      for (;;) {
        // The first waiting file that fits: a multi-process file takes two slots (its 3–4 servers
        // are busy at once) and runs alone of its kind; connections bounded.
        const used = [...running].reduce((n, r) => n + slotsOf(r), 0);
        const processesRunning = [...running].some((r) => r.placement === 'processes');
        const i = queue.findIndex(
          (j) => used + slotsOf(j) <= Math.max(opts.slots, slotsOf(j)) && !(j.placement === 'processes' && processesRunning) && connections + connectionsOf(j) <= MAX_CONNECTIONS,
        );
        // A multi-process file waiting for its second slot keeps the one that is free: filled by
        // a one-slot file each time, it waited to the end of the run, and the multi-process
        // files (~140 s, one at a time) ran last, with a slot or two idle (20 % of a run's CPU).
        const waiting = queue.findIndex((j) => j.placement === 'processes');
        if (!processesRunning && waiting >= 0 && (i < 0 || i > waiting)) break;
        if (i < 0) break;
        const [job] = queue.splice(i, 1) as [Job];
        running.add(job);
        connections += connectionsOf(job);
        void runOne(job, ++n).then((result) => {
          running.delete(job);
          connections -= connectionsOf(job);
          results.push(result);
          next();
        });
      }
    };
    next();
  });
  fs.rmSync(tmp, { recursive: true, force: true });
  return results;

  function runOne(job: Job, id: number): Promise<JobResult> {
    const base = path.join(tmp, String(id));
    const [spec, tap, durations, cpu] = ['spec.txt', 'report.tap', 'durations.jsonl', 'cpu.jsonl'].map((f) => `${base}-${f}`) as [string, string, string, string];
    const files = job.files.map((f) => opts.compiled.get(f) ?? f);
    const compiled = opts.compiled.has(job.files[0]!);
    const args = [
      ...(compiled ? ['--enable-source-maps'] : ['--import', 'tsx']),
      // Several files: Node's runner loads them all into this one process (their file-level
      // `before` hooks run first, their `after` hooks last: test/harness.ts, "shared").
      ...(job.files.length > 1 ? ['--test', '--test-isolation=none'] : []),
      // PGlite's WebAssembly compiled by Liftoff alone, without TurboFan's optimizing tier: a PGlite
      // file's process spent ~3 s of CPU (of ~6.6) optimizing code it ran for a few seconds.
      '--liftoff-only',
      // Three reporters on one stream pass Node's 10 listeners: a warning in every report, not a leak.
      '--disable-warning=MaxListenersExceededWarning',
      // Each file's CPU, its child processes' included (scripts/test-preload.mjs).
      '--import', path.join(opts.root, 'scripts', 'test-preload.mjs'),
      '--test-reporter=spec', `--test-reporter-destination=${spec}`,
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      `--test-reporter=${path.join(opts.root, 'scripts', 'file-durations.mjs')}`, `--test-reporter-destination=${durations}.out`,
      ...files,
    ];
    const started = performance.now();
    return new Promise((resolve) => {
      const env = { ...process.env, TEST_DB: job.db, FILE_DURATIONS_OUT: durations, TEST_CPU_OUT: cpu, NODE_COMPILE_CACHE: cache, ...(job.files.length > 1 ? { TEST_SHARED: '1' } : {}) };
      const child = spawn(process.execPath, args, { cwd: opts.root, stdio: ['ignore', 'pipe', 'pipe'], env });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      child.on('close', (code, signal) => {
        const ms = Math.round(performance.now() - started);
        const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
        const text = read(tap);
        const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
        const tests = read(durations)
          .split('\n')
          .filter(Boolean)
          .reduce((sum, l) => sum + ((JSON.parse(l) as { source?: string; ms: number }).source ? (JSON.parse(l) as { ms: number }).ms : 0), 0);
        const usage = read(cpu).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { own: number; children: number })[0];
        const exitCode = code ?? (signal ? 1 : 0);
        const passed = count('pass');
        // A file that ended without its summary (a crash, a signal) counts as one failure.
        const failed = count('fail') + count('cancelled') + (exitCode !== 0 && count('fail') === 0 ? 1 : 0);
        const db = job.placement === 'unit' ? '' : ` on ${job.db === 'pglite' ? 'PGlite' : 'PostgreSQL'}`;
        console.log(`\n── ${jobName(job)}${db}: ${passed} passed, ${failed} failed, ${(ms / 1000).toFixed(1)} s ──\n${read(spec).trimEnd()}${output.trim() ? `\n${output.trimEnd()}` : ''}`);
        for (const f of [spec, tap, durations, `${durations}.out`, cpu]) fs.rmSync(f, { force: true });
        const failures = tapFailures(text);
        if (failed > 0 && failures.length === 0) failures.push(`exit ${code ?? signal}: ${output.trim().split('\n').slice(-20).join('\n')}`);
        resolve({ job, passed, failed, exitCode, ms, tests, cpu: usage ? usage.own + usage.children : undefined, failures });
      });
    });
  }
}
