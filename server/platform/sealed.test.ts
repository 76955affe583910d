import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { isSealed, Keyring, keyId, sealedKeyId, SecretsKeyError, UnreadableSecret } from './sealed';

// The keyring of SECRETS_KEY (docs/security.md, "Secrets at rest"): what it accepts, what a sealed
// value looks like and is bound to, and which keys open and key what.

const key = () => randomBytes(32).toString('base64');

describe('Keyring', () => {
  it('takes comma-separated base64 or base64url keys of 32 bytes; the first seals, every one opens', () => {
    const [a, b] = [key(), key()];
    const old = Keyring.parse(b);
    const both = Keyring.parse(` ${a} , ${Buffer.from(b, 'base64').toString('base64url')}`);
    assert.equal(both.currentId, keyId(Buffer.from(a, 'base64')));
    assert.deepEqual(both.ids, [both.currentId, old.currentId]);
    const sealed = old.seal('webhooks.secret:whk_1', 'whsec_x');
    assert.equal(both.open('webhooks.secret:whk_1', sealed), 'whsec_x', 'a value under the second key opens');
    assert.equal(both.isCurrent(sealed), false);
    assert.equal(both.isCurrent(both.seal('p', 'v')), true);
  });

  it('refuses what is not a list of 32-byte keys, and one key twice, without echoing it', () => {
    const a = key();
    for (const text of ['', 'short', `${a},`, randomBytes(31).toString('base64'), randomBytes(33).toString('base64'), `${a},${a}`]) {
      const err = (() => {
        try {
          Keyring.parse(text);
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      assert.ok(err instanceof SecretsKeyError, text);
      if (text.length > 10) assert.ok(!err.message.includes(text.slice(0, 10)), err.message);
    }
  });

  it('seals as enc:v1:<key id>:…, a fresh IV each time; the value opens only for its place', () => {
    const ring = Keyring.parse(key());
    const one = ring.seal('agents.tool_secret:agt_1', 'whsec_secret');
    const two = ring.seal('agents.tool_secret:agt_1', 'whsec_secret');
    assert.match(one, new RegExp(`^enc:v1:${ring.currentId}:[A-Za-z0-9_-]+$`));
    assert.notEqual(one, two);
    assert.ok(isSealed(one) && !one.includes('secret'));
    assert.equal(sealedKeyId(one), ring.currentId);
    assert.equal(ring.open('agents.tool_secret:agt_1', one), 'whsec_secret');
    assert.throws(() => ring.open('agents.tool_secret:agt_2', one), (e) => e instanceof UnreadableSecret && /does not authenticate/.test(e.message));
    const flipped = `${one.slice(0, -2)}${one.at(-2) === 'A' ? 'B' : 'A'}${one.at(-1)}`;
    assert.throws(() => ring.open('agents.tool_secret:agt_1', flipped), UnreadableSecret);
  });

  it('a value under a key it does not hold: an error naming the key ids, never the value', () => {
    const stranger = Keyring.parse(key());
    const ring = Keyring.parse(key());
    const sealed = stranger.seal('p', 'whsec_hidden');
    assert.throws(
      () => ring.open('webhooks.secret:whk_9', sealed),
      (e) => e instanceof UnreadableSecret && e.keyId === stranger.currentId && e.message.includes(ring.currentId) && !e.message.includes('hidden'),
    );
    assert.throws(() => ring.open('p', 'enc:v2:whatever'), UnreadableSecret);
  });

  it('a value without the prefix is plaintext from before and opens as itself', () => {
    const ring = Keyring.parse(key());
    assert.equal(ring.open('p', 'whsec_legacy'), 'whsec_legacy');
    assert.equal(isSealed('whsec_legacy'), false);
    assert.equal(ring.isCurrent('whsec_legacy'), false);
  });

  it('fingerprints are keyed and name their key; another keyring cannot tell', () => {
    const [a, b] = [key(), key()];
    const ring = Keyring.parse(a);
    const digest = 'f'.repeat(64);
    const fp = ring.fingerprint(digest);
    assert.match(fp, new RegExp(`^${ring.currentId}:[0-9a-f]{64}$`));
    assert.ok(!fp.includes(digest));
    assert.equal(ring.matchesFingerprint(fp, digest), true);
    assert.equal(ring.matchesFingerprint(fp, 'e'.repeat(64)), false);
    assert.equal(Keyring.parse(`${b},${a}`).matchesFingerprint(fp, digest), true, 'a key no longer first still checks its fingerprints');
    assert.equal(Keyring.parse(b).matchesFingerprint(fp, digest), null, 'a key not held: unknown');
    assert.equal(ring.matchesFingerprint(digest, digest), null, 'a bare digest is not a keyed fingerprint');
  });
});
