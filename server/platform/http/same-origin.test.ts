import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crossSiteReason } from './same-origin';

// Which requests came from this site's own pages (same-origin.ts); over HTTP:
// test/api/dashboard-requests.int.test.ts.

const check = (headers: Record<string, string>, opts: { publicUrl?: string; trustProxy?: number } = {}) =>
  crossSiteReason(new Headers(headers), { trustProxy: 0, ...opts });

describe('crossSiteReason', () => {
  it("accepts the host's own pages and clients that are no browser", () => {
    assert.equal(check({ host: 'dash.example.com', origin: 'https://dash.example.com', 'sec-fetch-site': 'same-origin' }), null);
    assert.equal(check({ host: 'dash.example.com:8443', origin: 'https://dash.example.com:8443' }), null);
    assert.equal(check({ host: 'DASH.example.com', origin: 'https://dash.example.com' }), null, 'host names are case-insensitive');
    assert.equal(check({ host: 'dash.example.com', origin: 'https://dash.example.com:443' }), null, 'the default port is no port');
    assert.equal(check({ host: 'dash.example.com' }), null, 'neither header: not a browser');
    assert.equal(check({ host: 'dash.example.com', 'sec-fetch-site': 'none' }), null);
  });

  it('refuses another origin, however it is said', () => {
    assert.match(check({ host: 'dash.example.com', origin: 'https://evil.example.com' })!, /Origin/);
    assert.match(check({ host: 'dash.example.com', origin: 'https://dash.example.com:444' })!, /Origin/);
    assert.match(check({ host: 'dash.example.com', origin: 'null' })!, /not a web origin/);
    assert.match(check({ host: 'dash.example.com', origin: 'file://' })!, /not a web origin/);
    assert.match(check({ host: 'dash.example.com', origin: 'garbage' })!, /not a web origin/);
    assert.match(check({ host: 'dash.example.com', 'sec-fetch-site': 'same-site' })!, /same-site/);
    assert.match(check({ host: 'dash.example.com', origin: 'https://dash.example.com', 'sec-fetch-site': 'cross-site' })!, /cross-site/);
    assert.notEqual(check({ origin: 'https://dash.example.com' }), null, 'no Host: no own host');
  });

  it('X-Forwarded-Host names an own host only behind a trusted proxy', () => {
    const proxied = { host: 'app:3000', 'x-forwarded-host': 'dash.example.com', origin: 'https://dash.example.com' };
    assert.notEqual(check(proxied), null);
    assert.equal(check(proxied, { trustProxy: 1 }), null);
    assert.equal(check({ ...proxied, 'x-forwarded-host': 'cdn.example.net, dash.example.com' }, { trustProxy: 2 }), null);
    assert.notEqual(check({ ...proxied, origin: 'https://evil.example.com' }, { trustProxy: 1 }), null);
  });

  it('the public URL (NEXTAUTH_URL) is an own origin, scheme and port included', () => {
    const rewritten = { host: 'app:3000', origin: 'https://dash.example.com' };
    assert.equal(check(rewritten, { publicUrl: 'https://dash.example.com/' }), null);
    assert.notEqual(check(rewritten, { publicUrl: 'http://dash.example.com' }), null, 'another scheme');
    assert.notEqual(check(rewritten, { publicUrl: 'https://dash.example.com:8443' }), null, 'another port');
    assert.equal(check({ host: 'app:3000', origin: 'http://app:3000' }, { publicUrl: 'https://dash.example.com' }), null, 'the host asked stays own');
  });
});
