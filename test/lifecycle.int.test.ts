// test: pglite — embedded only: runs in the PGlite pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DB_KIND } from './harness';
import { runCli, startProcess, stop, waitReady, type Proc } from './processes';
import { until } from './eventually';
import { startFakeSmtp } from './fakes/smtp';

// The embedded set-up as an operator meets it (README, "Admin CLI"; docs/decisions.md,
// "Operations"): the admin CLI on a fresh data dir, one owner at a time, JSON logs with request ids
// and no secrets, and a graceful shutdown that lets an in-flight request finish and closes PGlite
// cleanly.

const KEY_LINE = /^svc_test_sk_[0-9A-Za-z]{38}\n$/;

describe('embedded lifecycle: admin CLI, logs, shutdown', { skip: DB_KIND !== 'pglite' && 'embedded (PGlite) only' }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-life-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  const email = 'ops@example.test';
  let server: Proc | undefined;
  let secret = '';

  const getKeys = (proc: Proc, key: string) => fetch(`${proc.url}/v1/keys`, { headers: { authorization: `Bearer ${key}` } });

  before(async () => {
    assert.equal((await runCli(['create-user', '--email', email, '--password', 'correct-horse'], env)).code, 0);
    assert.equal((await runCli(['set-plan', '--email', email, '--plan', 'professional'], env)).code, 0);
    const created = await runCli(['create-key', '--email', email, '--env', 'test', '--scopes', 'all', '--name', 'ops'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, KEY_LINE, 'the secret alone on stdout');
    secret = created.stdout.trim();
  });

  after(async () => {
    await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('invites by a member’s workspace: the link alone on stdout; a bad role is a usage error', async () => {
    const made = await runCli(['invite', '--by', email, '--email', 'newcomer@example.test', '--role', 'developer'], env);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /^http:\/\/localhost:\d+\/invite\/[A-Za-z0-9_-]{43}\n$/);
    const bad = await runCli(['invite', '--by', email, '--email', 'newcomer@example.test', '--role', 'boss'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--role must be one of: owner, admin, developer, viewer/);
    const both = await runCli(['invite', '--email', 'newcomer@example.test', '--role', 'viewer'], env);
    assert.equal(both.code, 2);
  });

  it('mails the invitation when SMTP_URL is set, saying so on stderr; the link still alone on stdout', async () => {
    const smtp = await startFakeSmtp();
    try {
      const made = await runCli(['invite', '--by', email, '--email', 'mailed@example.test', '--role', 'viewer'], { ...env, SMTP_URL: smtp.url, NEXTAUTH_URL: 'https://agents.example.test/' });
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, /^https:\/\/agents\.example\.test\/invite\/[A-Za-z0-9_-]{43}\n$/);
      assert.match(made.stderr, /mailed to mailed@example\.test/);
      assert.equal(smtp.received.length, 1);
      assert.ok(smtp.received[0]!.parsed.text?.includes(made.stdout.trim()));
      assert.ok(!made.stderr.includes(smtp.url) && !made.stdout.includes(smtp.url), 'the SMTP URL is never printed');
    } finally {
      await smtp.close();
    }
  });

  it('refuses to start on an invalid environment, naming the variable', async () => {
    const proc = await startProcess({ ...env, RATE_LIMIT_ANON_PER_MINUTE: 'lots' });
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(proc.output, /Invalid environment variable RATE_LIMIT_ANON_PER_MINUTE/);
    assert.doesNotMatch(proc.output, /\n\s+at /, 'no stack trace');
  });

  it('refuses a worker_lost delay shorter than 3 heartbeats, naming the variable', async () => {
    const proc = await startProcess({ ...env, EXECUTION_HEARTBEAT_SECONDS: '2', EXECUTION_LOST_AFTER_SECONDS: '5' });
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(proc.output, /Invalid environment variable EXECUTION_LOST_AFTER_SECONDS: at least 3 × EXECUTION_HEARTBEAT_SECONDS/);
  });

  it('refuses a price table that is not one (MODEL_PRICES), naming the variable', async () => {
    // At once: each stops at the environment check, before it opens the data dir.
    const tables = ['{"openai/gpt-4o": {"input": 2.5}}', '{"gpt-4o": {"input": 2.5, "output": 10}}', '{"openai/gpt-4o": {"input": -1, "output": 10}}', 'not json'];
    await Promise.all(
      tables.map(async (prices) => {
        const proc = await startProcess({ ...env, MODEL_PRICES: prices });
        const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
        assert.equal(code, 1, prices);
        assert.match(proc.output, /Invalid environment variable MODEL_PRICES/, prices);
      }),
    );
  });

  it('refuses bad CLI input with usage and exit code 2, writing nothing', async () => {
    const bad = await runCli(['set-plan', '--email', email, '--plan', 'gold'], env);
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /--plan must be one of: starter, professional, enterprise/);
    const rpm = await runCli(['set-plan', '--email', email, '--plan', 'starter', '--rpm', '10'], env);
    assert.equal(rpm.code, 2);
    const unknown = await runCli(['create-key', '--email', 'nobody@example.test', '--env', 'test'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user with email/);
  });

  it('serves the CLI-made key with its plan, and the CLI refuses while the server owns the data dir', async () => {
    server = await startProcess(env);
    await waitReady(server);
    const res = await getKeys(server, secret);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-limit'), '300');

    const locked = await runCli(['create-key', '--email', email, '--env', 'test'], env);
    assert.notEqual(locked.code, 0);
    assert.equal(locked.stdout, '');
    assert.match(locked.stderr, /in use by another process/);
    const list = (await (await getKeys(server, secret)).json()) as { data: unknown[] };
    assert.equal(list.data.length, 1, 'nothing was written');
  });

  it('logs JSON lines with the request id and never a secret', async () => {
    const proc = server!;
    const created = await fetch(`${proc.url}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'logged' }),
    });
    assert.equal(created.status, 201);
    const newSecret = ((await created.json()) as { key: string }).key;
    const bogus = `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`;
    const refused = await getKeys(proc, bogus);
    assert.equal(refused.status, 401);
    // Both requests' lines come through the pipe (instead of sleeping 200 ms for them).
    const ids = [created.headers.get('x-request-id')!, refused.headers.get('x-request-id')!];
    await until('both requests’ log lines', () => ids.every((id) => proc.output.includes(id)), { timeoutMs: 5_000 });

    const lines = proc.output.split('\n').filter((l) => l.startsWith('{'));
    const entries = lines.map((l) => JSON.parse(l) as { requestId?: string; status?: number; keyId?: string });
    const requestId = created.headers.get('x-request-id');
    const entry = entries.find((e) => e.requestId === requestId);
    assert.equal(entry?.status, 201, 'the request is logged with its id');
    assert.match(entry?.keyId ?? '', /^key_/, 'and the id (never the secret) of the key that made it');
    for (const s of [secret, newSecret, bogus]) assert.ok(!proc.output.includes(s), 'no key material in the logs');
  });

  it('lets an in-flight request finish on SIGTERM, then exits 0 and releases the data dir', async () => {
    const proc = server!;
    const body = JSON.stringify({ name: 'in flight' });
    const response = new Promise<number>((resolve, reject) => {
      const req = http.request(`${proc.url}/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        proc.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
    assert.equal(await response, 201);
    assert.equal(await exited, 0);
    assert.ok(!fs.existsSync(path.join(dataDir, 'owner.lock')), 'lock released');
    server = undefined;

    // The data survived the restart; the CLI owns the dir again.
    const again = await runCli(['create-key', '--email', email, '--env', 'test'], env);
    assert.equal(again.code, 0, again.stderr);
    server = await startProcess(env);
    await waitReady(server);
    const list = (await (await getKeys(server, secret)).json()) as { data: { name: string }[] };
    assert.deepEqual(
      list.data.map((k) => k.name),
      ['Admin CLI key', 'in flight', 'logged', 'ops'],
    );
  });
});
