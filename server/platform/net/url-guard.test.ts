import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { addressRefusal, checkUrl, checkUrlShape, guardedDispatcher, guardedLookup, UrlRefused, type Resolver } from './url-guard';

const live = { allowPrivate: false };

function refused(fn: () => unknown, reason?: string, message?: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof UrlRefused, `expected UrlRefused, got ${String(err)}`);
    if (reason) assert.equal(err.reason, reason);
    if (message) assert.match(err.message, message);
    return true;
  });
}

async function refusedAsync(p: Promise<unknown>, reason?: string, message?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof UrlRefused, `expected UrlRefused, got ${String(err)}`);
    if (reason) assert.equal(err.reason, reason);
    if (message) assert.match(err.message, message);
    return true;
  });
}

// A resolver that knows a few made-up names, so the DNS path is tested offline.
const fakeDns: Resolver = async (hostname) => {
  const table: Record<string, { address: string; family: number }[]> = {
    'rebind.example.com': [{ address: '127.0.0.1', family: 4 }],
    'mixed.example.com': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'mapped.example.com': [{ address: '::ffff:169.254.169.254', family: 6 }],
    'public.example.com': [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ],
  };
  const found = table[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

describe('checkUrlShape', () => {
  it('refuses every spelling of loopback, private, link-local and unspecified addresses', () => {
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1', /loopback address \(127\.0\.0\.1\)/],
      ['http://127.1', /loopback address \(127\.0\.0\.1\)/],
      ['http://2130706433', /loopback address \(127\.0\.0\.1\)/],
      ['http://0x7f000001', /loopback address \(127\.0\.0\.1\)/],
      ['http://0x7f.1', /loopback address \(127\.0\.0\.1\)/],
      ['http://0177.0.0.1', /loopback address \(127\.0\.0\.1\)/],
      ['http://[::1]', /loopback address \(::1\)/],
      ['http://[::ffff:127.0.0.1]', /loopback address/],
      ['http://[::ffff:7f00:1]', /loopback address/],
      ['http://[::7f00:1]', /reserved address/],
      ['http://10.1.2.3', /private address \(10\.1\.2\.3\)/],
      ['http://172.16.0.1', /private address/],
      ['http://192.168.1.1', /private address/],
      ['http://169.254.169.254/latest/meta-data', /link-local address \(169\.254\.169\.254\)/],
      ['http://[::ffff:169.254.169.254]/latest/meta-data', /link-local address/],
      ['http://100.64.0.1', /carrier-grade NAT address/],
      ['http://[fd00::1]', /private address/],
      ['http://[fe80::1]', /link-local address/],
      ['http://0.0.0.0', /unspecified address/],
      ['http://0', /unspecified address/],
      ['http://[::]', /unspecified address/],
      ['http://224.0.0.1', /multicast address/],
      ['http://255.255.255.255', /broadcast address/],
      ['http://192.0.2.1', /reserved address/],
      ['http://[2002:7f00:1::]', /reserved address/], // 6to4
      ['http://[2001::1]', /reserved address/], // teredo
      ['http://[64:ff9b::7f00:1]', /reserved address/], // NAT64
    ];
    for (const [url, message] of cases) {
      refused(() => checkUrlShape(url, live), 'non_public_address', message);
      refused(() => checkUrlShape(url, { allowPrivate: false, requireHttps: false }), 'non_public_address');
    }
  });

  it('refuses host names that are never public, with or without a trailing dot', () => {
    for (const url of [
      'http://localhost',
      'http://localhost.',
      'http://LOCALHOST:8080',
      'http://foo.localhost',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://metadata.google.internal./',
      'http://db.internal',
      'http://intranet',
    ]) {
      refused(() => checkUrlShape(url, live), 'blocked_host', /host name that is not public/);
    }
  });

  it('refuses credentials, other schemes, overlong and invalid URLs', () => {
    refused(() => checkUrlShape('http://user:pass@example.com', live), 'credentials', /^must not contain credentials$/);
    refused(() => checkUrlShape('http://user@example.com', live), 'credentials');
    refused(() => checkUrlShape('ftp://example.com', live), 'scheme', /^must use http or https$/);
    refused(() => checkUrlShape('file:///etc/passwd', live), 'scheme');
    refused(() => checkUrlShape('gopher://example.com', live), 'scheme');
    refused(() => checkUrlShape(`https://example.com/${'a'.repeat(2048)}`, live), 'too_long');
    refused(() => checkUrlShape('not a url', live), 'invalid');
    refused(() => checkUrlShape('http://[fe80::1%25eth0]/', live), 'invalid');
  });

  it('requires https only when asked and only for live (non-private) use', () => {
    refused(() => checkUrlShape('http://example.com/hook', { allowPrivate: false, requireHttps: true }), 'https_required');
    assert.equal(checkUrlShape('https://example.com/hook', { allowPrivate: false, requireHttps: true }).hostname, 'example.com');
    assert.equal(checkUrlShape('http://127.0.0.1:3000/hook', { allowPrivate: true, requireHttps: true }).port, '3000');
  });

  it('accepts public addresses and names', () => {
    assert.equal(checkUrlShape('http://93.184.215.14', live).hostname, '93.184.215.14');
    assert.equal(checkUrlShape('https://[2606:4700::1111]', live).hostname, '[2606:4700::1111]');
    assert.equal(checkUrlShape('https://[::ffff:93.184.215.14]/x', live).pathname, '/x');
    assert.equal(checkUrlShape('https://example.com:8443/tools/run?x=1', live).search, '?x=1');
  });

  it('with allowPrivate only checks scheme, credentials and length', () => {
    assert.equal(checkUrlShape('http://127.0.0.1:3000', { allowPrivate: true }).port, '3000');
    assert.equal(checkUrlShape('http://localhost:3000/x', { allowPrivate: true }).hostname, 'localhost');
    assert.equal(checkUrlShape('http://169.254.169.254', { allowPrivate: true }).hostname, '169.254.169.254');
    refused(() => checkUrlShape('file:///etc/passwd', { allowPrivate: true }), 'scheme');
    refused(() => checkUrlShape('http://a:b@127.0.0.1', { allowPrivate: true }), 'credentials');
  });
});

describe('addressRefusal', () => {
  it('names the range of a non-public address and is null for public unicast', () => {
    assert.equal(addressRefusal('8.8.8.8'), null);
    assert.equal(addressRefusal('2606:4700::1111'), null);
    assert.equal(addressRefusal('::ffff:8.8.8.8'), null);
    assert.equal(addressRefusal('127.0.0.1'), 'a loopback address');
    assert.equal(addressRefusal('::ffff:10.0.0.1'), 'a private address');
    assert.equal(addressRefusal('nonsense'), 'an invalid address');
  });
});

describe('checkUrl', () => {
  it('refuses a name that resolves to a non-public address, whatever the others are, without saying what it resolved to', async () => {
    for (const host of ['rebind.example.com', 'mixed.example.com', 'mapped.example.com']) {
      await refusedAsync(checkUrl(`https://${host}/x`, { ...live, resolver: fakeDns }), 'non_public_address', /^has a host that does not resolve to an allowed address$/);
    }
  });

  it('refuses localhost through the real resolver too, and names that do not resolve, with the same words', async () => {
    // localhost is refused by name first; through the resolver it is loopback as well.
    await refusedAsync(checkUrl('http://localhost:3000', live), 'blocked_host');
    // The same message as a private answer: which of the two it was would tell how our DNS sees the name.
    await refusedAsync(checkUrl('http://localhost.example.com', { ...live, resolver: (h) => fakeDns(h) }), 'unresolvable', /^has a host that does not resolve to an allowed address$/);
  });

  it('accepts a name whose addresses are all public, and skips DNS for literals and allowPrivate', async () => {
    assert.equal((await checkUrl('https://public.example.com/hook', { ...live, resolver: fakeDns })).hostname, 'public.example.com');
    const noDns: Resolver = async () => assert.fail('must not resolve');
    assert.equal((await checkUrl('http://93.184.215.14', { ...live, resolver: noDns })).hostname, '93.184.215.14');
    assert.equal((await checkUrl('http://rebind.example.com', { allowPrivate: true, resolver: noDns })).hostname, 'rebind.example.com');
    await refusedAsync(checkUrl('http://127.1', { ...live, resolver: noDns }), 'non_public_address');
  });
});

describe('guardedLookup', () => {
  const lookup = (allowPrivate: boolean, host: string, all: boolean) =>
    new Promise<unknown>((resolve, reject) => {
      guardedLookup(allowPrivate, fakeDns)(host, { all }, (err: Error | null, address: unknown, family?: number) =>
        err ? reject(err) : resolve(all ? address : { address, family }),
      );
    });

  it('connects only to the public addresses it resolved (no second lookup to rebind)', async () => {
    assert.deepEqual(await lookup(false, 'mixed.example.com', true), [{ address: '93.184.215.14', family: 4 }]);
    assert.deepEqual(await lookup(false, 'mixed.example.com', false), { address: '93.184.215.14', family: 4 });
  });

  it('fails when no public address remains, unless private ones are allowed', async () => {
    await refusedAsync(lookup(false, 'rebind.example.com', true), 'non_public_address', /^has a host that does not resolve to an allowed address$/);
    await refusedAsync(lookup(false, 'nowhere.example.com', false), 'unresolvable');
    assert.deepEqual(await lookup(true, 'rebind.example.com', false), { address: '127.0.0.1', family: 4 });
  });
});

describe('guardedDispatcher', () => {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is cached per allowPrivate value', () => {
    assert.equal(guardedDispatcher({ allowPrivate: false }), guardedDispatcher({ allowPrivate: false }));
    assert.notEqual(guardedDispatcher({ allowPrivate: false }), guardedDispatcher({ allowPrivate: true }));
  });

  it('refuses at connect time a name that resolves to loopback, without reaching the server', async () => {
    const before = hits;
    await refusedAsync(request(`http://localhost:${port}/`, { dispatcher: guardedDispatcher(live) }), 'non_public_address', /not resolve to an allowed address/);
    assert.equal(hits, before);
  });

  it('connects to it when private addresses are allowed', async () => {
    const res = await request(`http://localhost:${port}/`, { dispatcher: guardedDispatcher({ allowPrivate: true }) });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), 'ok');
  });

  it('does not see IP literals (net.connect skips lookup): checkUrlShape is what refuses them', async () => {
    // Documents why callers must run checkUrlShape before every request.
    const res = await request(`http://127.0.0.1:${port}/`, { dispatcher: guardedDispatcher(live) });
    assert.equal(res.statusCode, 200);
    await res.body.dump();
    refused(() => checkUrlShape(`http://127.0.0.1:${port}/`, live), 'non_public_address');
  });
});
