import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { addressKey, clientAddress, isTrustedProxy, proxyTrust } from './client-address';

const req = (peer: string, xff?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;
const hops = (n: number) => proxyTrust({ trustProxy: n, trustedProxies: [] });
const proxies = (...list: string[]) => proxyTrust({ trustProxy: 0, trustedProxies: list });

describe('clientAddress with TRUST_PROXY (a number of hops)', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    assert.equal(clientAddress(req('198.51.100.7', '1.2.3.4'), hops(0)), '198.51.100.7');
    assert.equal(isTrustedProxy('198.51.100.7', hops(0)), false);
  });

  it('takes the right-most untrusted hop, so a client rotating the left-most entry gains nothing', () => {
    // client sent "1.2.3.4"; our one proxy appended the real client 203.0.113.5.
    for (const spoof of ['1.2.3.4', '5.6.7.8', 'garbage', '']) {
      const xff = spoof ? `${spoof}, 203.0.113.5` : '203.0.113.5';
      assert.equal(clientAddress(req('10.0.0.2', xff), hops(1)), '203.0.113.5', xff);
    }
    assert.equal(clientAddress(req('10.0.0.3', '9.9.9.9, 203.0.113.5, 10.0.0.2'), hops(2)), '203.0.113.5');
    assert.equal(clientAddress(req('10.0.0.2', ['9.9.9.9', '203.0.113.5']), hops(1)), '203.0.113.5');
    // Every peer is taken for a proxy: its connections are not capped per address.
    assert.equal(isTrustedProxy('198.51.100.7', hops(1)), true);
  });

  it('falls back to the peer when the hop is not an IP address or the header is missing', () => {
    assert.equal(clientAddress(req('10.0.0.2', '1.2.3.4, not-an-ip'), hops(1)), '10.0.0.2');
    assert.equal(clientAddress(req('10.0.0.2'), hops(1)), '10.0.0.2');
  });
});

describe('clientAddress with TRUSTED_PROXIES (addresses)', () => {
  const trust = proxies('127.0.0.1', '10.0.0.0/8', 'fd00::/8');

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    assert.equal(clientAddress(req('198.51.100.7', '203.0.113.5'), trust), '198.51.100.7');
    assert.equal(clientAddress(req('::ffff:198.51.100.7', '203.0.113.5'), trust), '198.51.100.7');
    assert.equal(clientAddress(req('2001:db8:1:2::9', '203.0.113.5'), trust), '2001:db8:1:2::/64');
  });

  it('is the right-most entry that is not a trusted proxy; what the client wrote further left is ignored', () => {
    for (const spoof of ['1.2.3.4', '5.6.7.8, 10.1.1.1', 'garbage', '']) {
      const xff = spoof ? `${spoof}, 203.0.113.5` : '203.0.113.5';
      assert.equal(clientAddress(req('127.0.0.1', xff), trust), '203.0.113.5', xff);
    }
    // Two proxies (an edge at 10.0.0.9, then us over loopback): both skipped.
    assert.equal(clientAddress(req('127.0.0.1', '9.9.9.9, 203.0.113.5, 10.0.0.9'), trust), '203.0.113.5');
    assert.equal(clientAddress(req('::ffff:127.0.0.1', ['9.9.9.9', '203.0.113.5']), trust), '203.0.113.5');
    assert.equal(clientAddress(req('fd12::1', '2001:db8:aa:bb::1'), trust), '2001:db8:aa:bb::/64');
  });

  it('stops at an entry that is not an address, and at the left-most one when all are proxies', () => {
    assert.equal(clientAddress(req('127.0.0.1', '203.0.113.5, not-an-ip'), trust), '127.0.0.1');
    assert.equal(clientAddress(req('127.0.0.1', '203.0.113.5, not-an-ip, 10.0.0.9'), trust), '10.0.0.9');
    assert.equal(clientAddress(req('127.0.0.1', '10.0.0.8, 10.0.0.9'), trust), '10.0.0.8');
    assert.equal(clientAddress(req('127.0.0.1'), trust), '127.0.0.1');
  });

  it('matches peers by range, IPv4-mapped IPv6 as IPv4, and never across families', () => {
    assert.equal(isTrustedProxy('127.0.0.1', trust), true);
    assert.equal(isTrustedProxy('::ffff:127.0.0.1', trust), true);
    assert.equal(isTrustedProxy('127.0.0.2', trust), false);
    assert.equal(isTrustedProxy('10.255.0.1', trust), true);
    assert.equal(isTrustedProxy('11.0.0.1', trust), false);
    assert.equal(isTrustedProxy('fd00:1::1', trust), true);
    assert.equal(isTrustedProxy('::1', trust), false);
    assert.equal(isTrustedProxy('unknown', trust), false);
    assert.equal(isTrustedProxy('::1', proxies('::1')), true);
    assert.equal(isTrustedProxy('192.0.2.77', proxies('::ffff:192.0.2.0/120')), true);
    assert.equal(isTrustedProxy('fe80::1%lo', proxies('fe80::/10')), true);
  });
});

describe('addressKey', () => {
  it('unwraps IPv4-mapped IPv6 and counts IPv6 by /64', () => {
    assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
  });
});
