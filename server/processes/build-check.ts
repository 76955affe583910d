import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { sourceFingerprint } from './source-fingerprint.js';

// The production dashboard build (.next) and the sources it was built from. `npm run build`
// records a fingerprint of those sources beside the build; `npm start` rebuilds when the
// fingerprint differs (after a `git pull`) or there is no build, so it never serves stale code.

export { BUILD_SOURCES, sourceFingerprint } from './source-fingerprint.js';

export const FINGERPRINT_FILE = path.join('.next', 'source-fingerprint');
const BUILD_ID_FILE = path.join('.next', 'BUILD_ID');

export type BuildState = 'current' | 'missing' | 'changed';

/** Whether `.next` holds a build of exactly the current sources. */
export function buildState(root = process.cwd(), fingerprint = sourceFingerprint(root)): BuildState {
  if (!fs.existsSync(path.join(root, BUILD_ID_FILE))) return 'missing';
  let recorded = '';
  try {
    recorded = fs.readFileSync(path.join(root, FINGERPRINT_FILE), 'utf8').trim();
  } catch {
    // a build made by plain `next build` records nothing: rebuild once to be sure
  }
  return recorded === fingerprint ? 'current' : 'changed';
}

/** The environment for anything that runs Next: telemetry off unless the user chose otherwise. */
export function nextEnv<T extends Record<string, string | undefined>>(env: T): T & { NEXT_TELEMETRY_DISABLED?: string } {
  return { NEXT_TELEMETRY_DISABLED: '1', ...env };
}

/** Where a child's output goes as JSON lines: the process's logger (pino), or any with these levels. */
export interface LineLog {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

/** Lines of the child's stderr kept for the error logged when it fails. */
const FAILURE_TAIL = 40;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/**
 * `next build` in a child process. Its output goes to ours as it is (`npm run build`), or, with
 * `log`, as JSON lines like the rest of `npm start`'s log (`"source":"next build"`): each line of
 * its stdout at info and of its stderr (warnings and errors) at warn; when it fails, the last
 * lines of its stderr once more, at error. SIGTERM/SIGINT to us stop it and reject.
 */
export function runNextBuild(root: string, opts: { log?: LineLog } = {}): Promise<void> {
  const nextBin = createRequire(path.join(root, 'package.json')).resolve('next/dist/bin/next');
  return runChild(process.execPath, [nextBin, 'build'], { cwd: root, env: nextEnv(process.env), log: opts.log, source: 'next build' });
}

/** Runs a command to its end (see runNextBuild); rejects naming it when it fails. */
export function runChild(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; log?: LineLog; source: string },
): Promise<void> {
  const { log, source } = opts;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, stdio: log ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: opts.env });
    const tail: string[] = [];
    const lines = (stream: Readable | null, each: (line: string) => void) => {
      if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (raw) => {
        const line = raw.replace(ANSI, '').trimEnd();
        if (line.trim()) each(line);
      });
    };
    if (log) {
      lines(child.stdout, (line) => log.info({ source }, line));
      lines(child.stderr, (line) => {
        log.warn({ source, stream: 'stderr' }, line);
        tail.push(line);
        if (tail.length > FAILURE_TAIL) tail.shift();
      });
    }
    let interrupted: NodeJS.Signals | undefined;
    const forward = (signal: NodeJS.Signals) => {
      interrupted = signal;
      child.kill(signal);
    };
    process.on('SIGTERM', forward);
    process.on('SIGINT', forward);
    const done = (err?: Error) => {
      process.off('SIGTERM', forward);
      process.off('SIGINT', forward);
      if (err) reject(err);
      else resolve();
    };
    child.once('error', done);
    // 'close': after its output has been read to the end (every line logged).
    child.once('close', (code, signal) => {
      if (interrupted) return done(new BuildInterruptedError(interrupted));
      if (code === 0) return done();
      const where = log ? `the lines logged with "source":"${source}"` : 'the output above';
      if (log) log.error({ source, exitCode: code ?? signal, stderr: tail }, `${source} failed: the last lines of its errors`);
      done(new Error(`The dashboard build failed (${source} exited with ${code ?? signal}); see ${where}.`));
    });
  });
}

export class BuildInterruptedError extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`The dashboard build was stopped by ${signal}.`);
    this.name = 'BuildInterruptedError';
  }
}

export interface EnsureBuildOptions {
  root?: string;
  /** Build even when the recorded fingerprint matches (`npm run build`). */
  force?: boolean;
  /** One line before a build starts. */
  onBuild?: (reason: BuildState | 'forced') => void;
  /** Replaces `next build` (tests). */
  build?: (root: string) => Promise<void>;
  /** The sources' fingerprint when the caller has computed it already (`npm start`'s launcher). */
  fingerprint?: string;
}

/**
 * Builds the dashboard when `.next` is missing or was built from other sources, then records
 * the fingerprint of the sources as they were when the build started. Resolves with what it did.
 */
export async function ensureBuild(opts: EnsureBuildOptions = {}): Promise<BuildState | 'forced'> {
  const root = opts.root ?? process.cwd();
  const fingerprint = opts.fingerprint ?? sourceFingerprint(root);
  const state = opts.force ? 'forced' : buildState(root, fingerprint);
  if (state === 'current') return state;
  opts.onBuild?.(state);
  fs.rmSync(path.join(root, FINGERPRINT_FILE), { force: true });
  await (opts.build ?? runNextBuild)(root);
  fs.writeFileSync(path.join(root, FINGERPRINT_FILE), `${fingerprint}\n`);
  return state;
}

/**
 * Loads next.config.js once, quietly, before `app.prepare()`: Next's server then takes it from
 * its cache instead of printing "✓ Running next.config.js took …" above our first log line.
 * Best effort (Next internals): should they change, that line simply comes back.
 */
export function preloadNextConfig(dir: string, dev: boolean): Promise<void> {
  const require = createRequire(path.join(dir, 'package.json'));
  try {
    const { default: loadConfig } = require('next/dist/server/config') as typeof import('next/dist/server/config');
    const { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_SERVER } = require('next/constants') as typeof import('next/constants');
    return loadConfig(dev ? PHASE_DEVELOPMENT_SERVER : PHASE_PRODUCTION_SERVER, dir).then(
      () => undefined,
      () => undefined, // app.prepare() reports a broken config itself
    );
  } catch {
    return Promise.resolve();
  }
}
