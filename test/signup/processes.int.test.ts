// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createTestDatabase, DB_KIND, TEST_AUTH_SECRET } from '../harness';
import { runCli, startProcess, stop, waitReady, type Proc } from '../processes';

// Who can reach a server and make an account there, with real web processes (RUN_WORKERS=false,
// started as `npm start` starts them) — docs/security.md, "Sign-up" and "Listen address".
// Reported (issue 43, item 9): `npm start` listened on every interface and anyone reaching it
// could sign up. Now it listens on 127.0.0.1 unless HOST says otherwise, and its start-up line
// says where and how to serve others; SIGNUP_MODE is validated at start; the admin CLI makes
// accounts in every mode, `closed` included.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-listen-'));
const procs: Proc[] = [];
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const p of procs) await stop(p);
  for (const cleanup of cleanups) await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A fresh database for one process (a data dir, or a PostgreSQL database), as its environment. */
async function database(): Promise<Record<string, string>> {
  const dataDir = fs.mkdtempSync(path.join(tmp, 'data-'));
  if (DB_KIND !== 'postgres') return { DATA_DIR: dataDir };
  const pg = await createTestDatabase();
  cleanups.push(() => pg.drop());
  return { DATA_DIR: dataDir, DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET };
}

/** A web process alone, with HOST and SIGNUP_MODE unset unless given: their defaults. */
async function webProcess(env: Record<string, string | undefined>): Promise<Proc> {
  const data = env.DATA_DIR ? {} : await database();
  const proc = await startProcess({ RUN_WORKERS: 'false', LOG_LEVEL: 'info', HOST: undefined, SIGNUP_MODE: undefined, ...data, ...env });
  procs.push(proc);
  await waitReady(proc);
  return proc;
}

const listening = (proc: Proc) => proc.output.split('\n').find((l) => l.includes('"listening on'));
const port = (proc: Proc) => new URL(proc.url).port;
/** This machine's own address on a network (not loopback), if it has one. */
const external = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, p: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(p) });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('where a web process listens', () => {
  it('with HOST unset: on 127.0.0.1 only, and the start-up line says how to serve other machines', async () => {
    const proc = await webProcess({});
    const line = JSON.parse(listening(proc) ?? '{}') as { msg?: string; url?: string; signupMode?: string };
    assert.equal(line.url, `http://127.0.0.1:${port(proc)}`);
    assert.match(line.msg ?? '', /^listening on http:\/\/127\.0\.0\.1:\d+ \(this machine only: set HOST=0\.0\.0\.0 to serve others, or put a reverse proxy in front: README, "Behind a reverse proxy"\)/);
    assert.equal(line.signupMode, 'invite', 'the default mode, logged');
    assert.equal(await connects('127.0.0.1', port(proc)), true);
    assert.equal(await connects('127.0.0.2', port(proc)), false, 'another loopback address is not this one');
    if (external) assert.equal(await connects(external, port(proc)), false, `not on ${external}`);
  });

  it('with HOST=0.0.0.0: every interface, and a warning when sign-up is open there', async () => {
    const proc = await webProcess({ HOST: '0.0.0.0', SIGNUP_MODE: 'open' });
    assert.match(listening(proc) ?? '', /listening on http:\/\/0\.0\.0\.0:\d+ \(all interfaces; open http:\/\/localhost:\d+\)/);
    if (external) assert.equal(await connects(external, port(proc)), true, `reached on ${external}`);
    assert.match(proc.output, /SIGNUP_MODE=open on http:\/\/0\.0\.0\.0:\d+: anyone who can reach it may create an account/);
    const quiet = await webProcess({ HOST: '0.0.0.0' });
    assert.doesNotMatch(quiet.output, /SIGNUP_MODE=open/, 'no warning in the default mode');
  });

  it('a SIGNUP_MODE it does not know stops the start, naming the variable', async () => {
    const proc = await startProcess({ RUN_WORKERS: 'false', SIGNUP_MODE: 'invite-only', ...(await database()) });
    procs.push(proc);
    const code = proc.child.exitCode ?? (await new Promise<number | null>((resolve) => proc.child.once('exit', resolve)));
    assert.equal(code, 1);
    assert.match(proc.output, /Invalid environment variable SIGNUP_MODE/);
  });
});

describe('the admin CLI in SIGNUP_MODE=closed', () => {
  it('creates an account and a key, which the server then serves', async () => {
    const db = { ...(await database()), SIGNUP_MODE: 'closed' };
    const email = `operator-${Date.now()}@example.test`;
    const made = await runCli(['create-user', '--email', email, '--password', 'correct horse battery staple'], db);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /created user usr_/);
    const key = await runCli(['create-key', '--email', email, '--env', 'test'], db);
    assert.equal(key.code, 0, key.stderr);
    const proc = await webProcess(db);
    const res = await fetch(`${proc.url}/v1/agents`, { headers: { authorization: `Bearer ${key.stdout.trim()}` } });
    assert.equal(res.status, 200);
  });
});
