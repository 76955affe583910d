// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { alive } from '../../db/lock';
import { createTestDatabase, DB_KIND, prepareDataDir, TEST_AUTH_SECRET, TEST_SECRETS_KEY } from '../harness';
import { freePort, ROOT, runCli, waitReady, type Proc } from '../processes';
import { startReceiver } from './receiver';

// The first webhook on a laptop, as the README shows it: under `npm run dev` a webhook may call
// a receiver on the developer's own machine, while `npm start` (production) keeps refusing
// private and loopback addresses, and says which setting would allow them. The key comes from
// the admin CLI with the README's scopes. Real `npm run dev` / `npm start` processes (API only).

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-private-urls-'));
const groups: number[] = [];
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const pid of groups) if (alive(pid)) process.kill(-pid, 'SIGKILL');
  for (const cleanup of cleanups) await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const README_SCOPES = 'agents:read,agents:write,agents:execute,webhooks:manage';

/** A fresh data dir (or database) with a user and a live key made by the admin CLI, then `npm <args>` on it. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Proc & { key: string; stop(): Promise<void> }> {
  const data: Record<string, string> = {};
  if (DB_KIND === 'postgres') {
    const pg = await createTestDatabase();
    cleanups.push(() => pg.drop());
    Object.assign(data, { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET, SECRETS_KEY: TEST_SECRETS_KEY });
  } else {
    data.DATA_DIR = fs.mkdtempSync(path.join(tmp, 'data-'));
    await prepareDataDir(data.DATA_DIR);
  }
  const email = 'dev@example.test';
  assert.equal((await runCli(['create-user', '--email', email, '--password', 'password123'], data)).code, 0);
  const created = await runCli(['create-key', '--email', email, '--env', 'live', '--scopes', README_SCOPES], data);
  assert.equal(created.code, 0, created.stderr);
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...data, DASHBOARD: 'false', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_ENV', 'WEBHOOK_ALLOW_PRIVATE_URLS']) if (!(name in env)) delete childEnv[name];
  if (DB_KIND !== 'postgres') delete childEnv.DATABASE_URL;
  // Its own process group: `npm run dev` is npm → tsx watch → node.
  const child = spawn('npm', args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  groups.push(child.pid!);
  const proc: Proc = { child, url: `http://127.0.0.1:${port}`, output: '' };
  child.stdout.on('data', (c: Buffer) => (proc.output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (proc.output += c.toString()));
  await waitReady(proc);
  return {
    ...proc,
    key: created.stdout.trim(),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => alive(child.pid!) && process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function call(proc: { url: string; key: string }, method: string, p: string, body?: unknown) {
  const res = await fetch(`${proc.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${proc.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { code: string; message: string; param?: string } } };
}

describe('webhooks to the developer’s own machine', () => {
  it('work under `npm run dev` as the README shows: a webhook to localhost gets its test event', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const dev = await serve(['run', 'dev']);
    try {
      const created = await call(dev, 'POST', '/v1/webhooks', { url: `http://localhost:${receiver.port}/hook`, events: ['*'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const tested = await call(dev, 'POST', `/v1/webhooks/${created.body.id as string}/test`);
      assert.equal(tested.status, 202, JSON.stringify(tested.body));
      const [delivery] = await receiver.waitFor(1);
      assert.equal(delivery!.json.type, 'webhook.test');
      new Webhook(created.body.secret as string).verify(delivery!.body, delivery!.headers as Record<string, string>);
    } finally {
      await dev.stop();
    }
  });

  for (const [label, args, env] of [
    ['`npm start` (production)', ['start'], {}],
    ['`npm run dev` with WEBHOOK_ALLOW_PRIVATE_URLS=false', ['run', 'dev'], { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }],
  ] as const) {
    it(`are refused by ${label}, with the setting that would allow them named`, async () => {
      const server = await serve([...args], env);
      try {
        for (const [url, said] of [
          ['https://127.0.0.1:4000/hook', /^'url' uses a loopback address \(127\.0\.0\.1\)\. /],
          ['https://localhost:4000/hook', /^'url' uses a host name that is not public\. /],
          ['https://192.168.1.20/hook', /^'url' uses a private address \(192\.168\.1\.20\)\. /],
          ['http://example.com/hook', /^'url' must use https in live mode; /],
        ] as const) {
          const res = await call(server, 'POST', '/v1/webhooks', { url, events: ['*'] });
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.error?.code, 'invalid_parameter');
          assert.equal(res.body.error?.param, 'url');
          assert.match(res.body.error!.message, said);
          assert.match(res.body.error!.message, /WEBHOOK_ALLOW_PRIVATE_URLS=true/);
        }
        const list = await call(server, 'GET', '/v1/webhooks');
        assert.deepEqual(list.body.data, [], 'nothing was created');
      } finally {
        await server.stop();
      }
    });
  }
});
