import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { alive } from '../db/lock';
import { createTestDatabase, DB_KIND, TEST_AUTH_SECRET, TEST_SECRETS_KEY } from './harness';
import { freePort, ROOT, waitReady, type Proc } from './processes';
import { until as waitUntil } from './eventually';

// `npm start` as a process manager runs it (systemd, Docker, pm2 send SIGTERM to the process
// they started, npm, and to nothing else): the server is npm's only child, logs each start-up
// phase with its duration, where it listens and where the data lives (as soon as its first code
// is loaded: test/start-listen-first.int.test.ts), then when /v1 answers, and a SIGTERM
// to npm alone stops it gracefully, closing the port and releasing the data dir. The API alone
// (DASHBOARD=false): no dashboard build (the server itself is compiled when its sources changed).

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-start-'));
const started: number[] = [];
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  // npm and what it started: a test that failed midway leaves the server running, and its
  // output pipes open would keep this file's process from ever exiting.
  for (const pid of started) for (const p of [...descendants(pid), pid]) if (alive(p)) process.kill(p, 'SIGKILL');
  for (const cleanup of cleanups) await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});


/** pid → parent pid of every process (Linux /proc). */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      map.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return map;
}

const childrenOf = (pid: number, map = parents()) => [...map].filter(([, ppid]) => ppid === pid).map(([child]) => child);

/** The processes `pid` started, and the ones they started. */
function descendants(pid: number): number[] {
  const map = parents();
  const found: number[] = [];
  for (let i = -1; i < found.length; i++) found.push(...childrenOf(i < 0 ? pid : found[i]!, map));
  return found;
}

const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();

const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => waitUntil(what, check, { timeoutMs, everyMs: 50 });

/** `npm start` exactly as a user types it, on a fresh data dir (or database) and a free port. */
async function npmStart(dataDir = fs.mkdtempSync(path.join(tmp, 'data-'))): Promise<Proc & { dataDir: string; databaseUrl?: string }> {
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    DASHBOARD: 'false',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_ENV; // the start script sets it
  if (DB_KIND === 'postgres') {
    const pg = await createTestDatabase({ empty: true }); // migrated by the server's start, as in production
    cleanups.push(() => pg.drop());
    env.DATABASE_URL = pg.url;
    env.AUTH_SECRET = TEST_AUTH_SECRET;
    env.SECRETS_KEY = TEST_SECRETS_KEY;
  } else {
    delete env.DATABASE_URL;
  }
  const child = spawn('npm', ['start'], { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child.pid!);
  const proc = { child, url: `http://127.0.0.1:${port}`, output: '', dataDir, databaseUrl: env.DATABASE_URL };
  child.stdout.on('data', (c: Buffer) => (proc.output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (proc.output += c.toString()));
  return proc;
}

interface LogLine {
  msg: string;
  url?: string;
  phase?: string;
  ms?: number;
  startupMs?: number;
}
const logLines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/** The start-up phases of an API-only `npm start`, in the order they are logged: before it listens, and after. */
const BEFORE_LISTENING = ['serverBundle', 'code'];
const AFTER_LISTENING = ['appCode', 'database', 'migrations', 'secrets', 'agentVersions', 'rateLimits', 'jobs', 'workers'];

describe('npm start under a process manager', () => {
  let migratedDataDir: string | undefined;

  it('runs the server as npm’s only child, and a SIGTERM to npm alone stops it gracefully', async () => {
    const proc = await npmStart();
    const npmPid = proc.child.pid!;
    await waitReady(proc);

    const children = descendants(npmPid);
    const direct = childrenOf(npmPid);
    assert.equal(direct.length, 1, `one child of npm, no shell in between: ${direct.map(cmdline).join(' | ')}`);
    const server = direct[0]!;
    assert.match(cmdline(server), /node .*server\/processes\/launch\.js/);
    const lockFile = path.join(proc.dataDir, 'owner.lock');
    if (DB_KIND === 'pglite') assert.equal(fs.readFileSync(lockFile, 'utf8'), String(server), 'the server holds the data dir');

    // One line per start-up phase as it ends, with its duration; the real address and where the
    // data lives (no credentials) once the first code is loaded; then when /v1 answers, with the
    // time since the process started (its line may come through the pipe after /readyz answered).
    await until('the "ready" line', () => proc.output.includes('"msg":"ready: '));
    const lines = logLines(proc.output);
    const listening = lines.findIndex((l) => l.url !== undefined);
    const ready = lines.findIndex((l) => l.msg.startsWith('ready: '));
    assert.ok(listening > 0 && ready > listening, proc.output);
    const before = lines.slice(0, listening);
    const after = lines.slice(listening + 1, ready).filter((l) => l.phase);
    assert.deepEqual(before.map((l) => l.phase), BEFORE_LISTENING, proc.output);
    assert.deepEqual(after.map((l) => l.phase), AFTER_LISTENING, proc.output);
    for (const p of [...before, ...after]) {
      assert.ok(Number.isInteger(p.ms) && p.ms! >= 0, `${p.phase}: ${p.ms}`);
      assert.match(p.msg, new RegExp(`^start-up: .+ in ${p.ms} ms$`));
    }
    assert.match(before[0]!.msg, /^start-up: (compiled server is current|server compiled for these sources) in/);
    const first = lines[listening]!;
    assert.equal(first.url, proc.url);
    const where = proc.databaseUrl
      ? `PostgreSQL ${new URL(proc.databaseUrl).host}${new URL(proc.databaseUrl).pathname}`
      : `${path.resolve(proc.dataDir)} (embedded PGlite)`;
    const reach = ' (this machine only: set HOST=0.0.0.0 to serve others, or put a reverse proxy in front: README, "Behind a reverse proxy")';
    assert.equal(first.msg, `listening on ${proc.url}${reach}, data in ${where}; /v1 answers once the database is ready`);
    assert.equal(lines[ready]!.msg, `ready: /v1 answers at ${proc.url}`);
    const total = [...before, ...after].reduce((sum, p) => sum + p.ms!, 0);
    assert.ok(lines[ready]!.startupMs! >= total, `startupMs ${lines[ready]!.startupMs} covers the phases (${total} ms)`);
    if (proc.databaseUrl) assert.ok(!proc.output.includes(proc.databaseUrl), 'not the database URL with its user name');

    const npmExited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
    process.kill(npmPid, 'SIGTERM');
    assert.equal(await npmExited, 0, 'npm reports the server’s clean exit');
    await until('every process npm started is gone', () => children.every((pid) => !alive(pid)));
    await assert.rejects(fetch(`${proc.url}/readyz`), 'the port no longer answers');
    assert.ok(!fs.existsSync(lockFile), 'the data dir is released');
    const messages = logLines(proc.output).map((l) => l.msg);
    assert.deepEqual(messages.slice(-2).sort(), ['shutting down', 'stopped'].sort(), proc.output);
    migratedDataDir = proc.dataDir;
  });

  it(
    'stops cleanly on a SIGTERM that comes while it is still starting',
    { skip: DB_KIND !== 'pglite' && 'the data dir lock marks the moment (embedded only)' },
    async () => {
      const proc = await npmStart(migratedDataDir); // already migrated: a quicker start
      const lockFile = path.join(proc.dataDir, 'owner.lock');
      await until('the server took the data dir', () => fs.existsSync(lockFile) || proc.child.exitCode !== null, 30_000);
      const children = descendants(proc.child.pid!);
      const npmExited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
      process.kill(proc.child.pid!, 'SIGTERM');
      assert.equal(await npmExited, 0, proc.output);
      await until('every process npm started is gone', () => children.every((pid) => !alive(pid)));
      assert.ok(!fs.existsSync(lockFile), 'the data dir is released');
      assert.match(proc.output, /"msg":"(stopped during start-up|stopped)"/);
    },
  );
});
