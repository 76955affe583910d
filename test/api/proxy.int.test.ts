// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../harness';
import { ROOT } from '../processes';
import { rawConnection, requestFrom, type RawConnection } from '../sockets';

// Behind a reverse proxy (docs/security.md, "Client address"; README, "Behind a reverse
// proxy"): TRUSTED_PROXIES names the proxies. Only their X-Forwarded-For is read, the client is
// the right-most address in it that is not a proxy, and their connections are not capped per
// address (every client behind a proxy shares its address). Here the proxy is 127.0.0.3; other
// loopback addresses are clients that reach the server directly. A stand-in for Next echoes the
// client address the server stamps for it.

const PROXY = '127.0.0.3';
const CAP = 20;

let api: TestServer;
before(async () => {
  api = await startServer({
    env: { TRUSTED_PROXIES: PROXY, MAX_CONNECTIONS_PER_ADDRESS: String(CAP), RATE_LIMIT_ANON_PER_MINUTE: '5' },
    next: (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ address: req.headers['x-aas-client-address'] }));
    },
  });
});
after(() => api?.close());

const HALF_SENT = 'GET /healthz HTTP/1.1\r\nHost: x\r\n';

/** `n` connections from `local` holding a half-sent request, once all are connected. */
async function hold(local: string, n: number): Promise<RawConnection[]> {
  const held = Array.from({ length: n }, () => rawConnection(api.url, local, HALF_SENT));
  await Promise.all(held.map((c) => new Promise((resolve) => c.socket.once('connect', resolve))));
  return held;
}

const keyless = (local: string, forwardedFor?: string) =>
  requestFrom(api.url, local, 'GET', '/v1/keys', { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

describe('connections per address', () => {
  it(`a client is capped at MAX_CONNECTIONS_PER_ADDRESS (${CAP}); a closed connection gives its place back`, async () => {
    const held = await hold('127.0.0.4', CAP);
    try {
      const refused = await requestFrom(api.url, '127.0.0.4', 'GET', '/healthz');
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.match(refused.text, /"code":"rate_limit_exceeded".*at most 20 at once/);
      // Another client is not affected.
      assert.equal((await requestFrom(api.url, '127.0.0.5', 'GET', '/healthz')).status, 200);

      held.pop()!.socket.destroy();
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 20));
        status = (await requestFrom(api.url, '127.0.0.4', 'GET', '/healthz')).status;
      }
      assert.equal(status, 200, 'the closed connection gave its place back');
    } finally {
      for (const c of held) c.socket.destroy();
    }
  });

  it("a trusted proxy's connections are not capped: it carries every client", async () => {
    const held = await hold(PROXY, 3 * CAP);
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => requestFrom(api.url, PROXY, 'GET', '/healthz')));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200, 200],
      );
      assert.equal(held.filter((c) => c.received !== '').length, 0, 'no held connection of the proxy was refused');
    } finally {
      for (const c of held) c.socket.destroy();
    }
  });
});

describe('client address', () => {
  it('through the trusted proxy: the address it forwards is the one rate limits and Next see', async () => {
    for (let i = 0; i < 5; i++) {
      // Whatever the client wrote on the left changes nothing.
      const r = await keyless(PROXY, `10.9.9.${i}, 203.0.113.7`);
      assert.equal(r.status, 401);
      assert.equal(r.headers['x-ratelimit-remaining'], String(4 - i));
    }
    assert.equal((await keyless(PROXY, '1.1.1.1, 203.0.113.7')).status, 429);
    assert.equal((await keyless(PROXY, '203.0.113.7')).status, 429);
    // Another client behind the same proxy has its own limit.
    assert.equal((await keyless(PROXY, '203.0.113.8')).status, 401);

    const echo = await requestFrom(api.url, PROXY, 'GET', '/dashboard', {
      headers: { 'x-forwarded-for': '6.6.6.6, 2001:db8:1:2::99', 'x-aas-client-address': '6.6.6.6' },
    });
    assert.deepEqual(echo.body, { address: '2001:db8:1:2::/64' });
  });

  it("a peer that is not a trusted proxy: its X-Forwarded-For is ignored", async () => {
    for (let i = 0; i < 5; i++) assert.equal((await keyless('127.0.0.6', `198.51.100.${i}`)).status, 401);
    // Each request named another address: all were counted against the socket's.
    assert.equal((await keyless('127.0.0.6', '198.51.100.99')).status, 429);
    const echo = await requestFrom(api.url, '127.0.0.6', 'GET', '/dashboard', {
      headers: { 'x-forwarded-for': '203.0.113.50', 'x-aas-client-address': '203.0.113.50' },
    });
    assert.deepEqual(echo.body, { address: '127.0.0.6' });
  });
});

describe('configuration', () => {
  /** Loads server/platform/env.js with `env`: its exit code and what it printed. */
  const loadEnv = (env: Record<string, string>) =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['server/platform/env.js'], { cwd: ROOT, env: { PATH: process.env.PATH, NODE_ENV: 'test', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      child.once('exit', (code) => resolve({ code, output }));
    });

  it('refuses a TRUSTED_PROXIES entry that is not an address or a range, and TRUST_PROXY with it', async () => {
    const [bad, both, good] = await Promise.all([
      loadEnv({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/33, proxy.internal' }),
      loadEnv({ TRUSTED_PROXIES: '127.0.0.1', TRUST_PROXY: '1' }),
      loadEnv({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8, fd00::/8', MAX_CONNECTIONS_PER_ADDRESS: '0' }),
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.output, /Invalid environment variable TRUSTED_PROXIES: '10\.0\.0\.0\/33' is not an IP address or a CIDR range/);
    assert.match(bad.output, /'proxy\.internal' is not an IP address/);
    assert.equal(both.code, 1);
    assert.match(both.output, /Invalid environment variable TRUSTED_PROXIES: set either TRUST_PROXY or TRUSTED_PROXIES, not both/);
    assert.equal(good.code, 0, good.output);
  });
});
