import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { addressKey, clientAddress } from './client-address';

const req = (peer: string, xff?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    assert.equal(clientAddress(req('198.51.100.7', '1.2.3.4'), 0), '198.51.100.7');
  });

  it('takes the right-most untrusted hop, so a client rotating the left-most entry gains nothing', () => {
    // client sent "1.2.3.4"; our one proxy appended the real client 203.0.113.5.
    for (const spoof of ['1.2.3.4', '5.6.7.8', 'garbage', '']) {
      const xff = spoof ? `${spoof}, 203.0.113.5` : '203.0.113.5';
      assert.equal(clientAddress(req('10.0.0.2', xff), 1), '203.0.113.5', xff);
    }
    assert.equal(clientAddress(req('10.0.0.3', '9.9.9.9, 203.0.113.5, 10.0.0.2'), 2), '203.0.113.5');
    assert.equal(clientAddress(req('10.0.0.2', ['9.9.9.9', '203.0.113.5']), 1), '203.0.113.5');
  });

  it('falls back to the peer when the hop is not an IP address or the header is missing', () => {
    assert.equal(clientAddress(req('10.0.0.2', '1.2.3.4, not-an-ip'), 1), '10.0.0.2');
    assert.equal(clientAddress(req('10.0.0.2'), 1), '10.0.0.2');
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
