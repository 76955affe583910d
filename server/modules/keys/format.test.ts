import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateKey, hashKey, parseKey, PREFIX_LENGTH } from './format';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('key format', () => {
  it('is svc_<env>_sk_ followed by at least 32 base62 characters', () => {
    for (const env of ['live', 'test'] as const) {
      const { key } = generateKey(env);
      const m = new RegExp(`^svc_${env}_sk_([0-9A-Za-z]+)$`).exec(key);
      assert.ok(m, key);
      assert.ok(m[1]!.length >= 32, `secret part too short: ${m[1]!.length}`);
      assert.deepEqual(parseKey(key), { environment: env });
    }
  });

  it('has a 16-character prefix that is the start of the key', () => {
    const { key, prefix } = generateKey('live');
    assert.equal(PREFIX_LENGTH, 16);
    assert.equal(prefix.length, 16);
    assert.equal(prefix, key.slice(0, 16));
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKey('test').key));
    assert.equal(keys.size, 2000);
  });

  it('uses the whole base62 alphabet in the random part', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) for (const c of generateKey('test').key.slice(12)) seen.add(c);
    assert.equal(seen.size, 62);
  });

  it('refuses every one-character change (the checksum catches it)', () => {
    const { key } = generateKey('live');
    for (let i = 12; i < key.length; i++) {
      for (const offset of [1, 17, 61]) {
        const c = BASE62[(BASE62.indexOf(key[i]!) + offset) % 62]!;
        const changed = key.slice(0, i) + c + key.slice(i + 1);
        assert.equal(parseKey(changed), null, `change at ${i} accepted: ${changed}`);
      }
    }
  });

  it('refuses a key whose environment was edited, truncated or extended', () => {
    const { key } = generateKey('test');
    assert.equal(parseKey(key.replace('svc_test_', 'svc_live_')), null);
    assert.equal(parseKey(key.slice(0, -1)), null);
    assert.equal(parseKey(key + 'a'), null);
  });

  it('refuses other shapes', () => {
    const secret = generateKey('live').key.slice(12);
    for (const bad of ['', 'svc_live_sk_', `sk_live_${secret}`, `svc_prod_sk_${secret}`, `SVC_LIVE_SK_${secret}`, `svc_live_pk_${secret}`, ` svc_live_sk_${secret}`, `svc_live_sk_${secret.slice(0, -1)}-`]) {
      assert.equal(parseKey(bad), null, bad);
    }
  });
});

describe('key hashing', () => {
  it('is the hex SHA-256 of the whole key, never the key itself', () => {
    const { key, hash } = generateKey('live');
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(hash, createHash('sha256').update(key).digest('hex'));
    assert.equal(hashKey(key), hash);
    assert.notEqual(hash, key);
    assert.ok(!hash.includes(key.slice(12)));
  });

  it('differs for keys that differ by one character', () => {
    const { key } = generateKey('test');
    assert.notEqual(hashKey(key), hashKey(key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a')));
  });
});
