import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  canonicalEmail,
  createAuthGuards,
  SIGN_IN_CHECKS_PER_ACCOUNT,
  SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS,
  SIGN_IN_FAILURES_PER_ADDRESS,
  SIGN_UPS_PER_ADDRESS,
} from './guards';

// The dashboard's brute-force guards on the memory store (embedded mode).
const guards = () => createAuthGuards((keyPrefix, duration) => new RateLimiterMemory({ keyPrefix, points: 2 ** 31 - 1, duration }));

describe('sign-in guard', () => {
  it('allows 10 attempts per account from one address, then blocks that address for about 15 minutes', async () => {
    const g = guards();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS; i++) assert.equal(await g.signIn.attempt('usr_victim', '10.0.0.1'), 0);
    const wait = await g.signIn.attempt('usr_victim', '10.0.0.1');
    assert.ok(wait > 14 * 60 && wait <= 15 * 60, `blocked for about 15 minutes, got ${wait}s`);
    assert.equal(await g.signIn.attempt('usr_other', '10.0.0.1'), 0, 'another account from the same address');
  });

  it("one address's failures do not lock the owner out: another address still gets its checks", async () => {
    const g = guards();
    for (let i = 0; i < 50; i++) await g.signIn.attempt('usr_owner', '203.0.113.66');
    assert.equal(await g.signIn.attempt('usr_owner', '198.51.100.7'), 0);
  });

  it('bounds guessing from many addresses: 30 checks per account in the window, however many addresses', async () => {
    const g = guards();
    const waits = await Promise.all(Array.from({ length: 200 }, (_, i) => g.signIn.attempt('usr_race', `10.1.${i >> 8}.${i & 255}`)));
    assert.equal(waits.filter((w) => w === 0).length, SIGN_IN_CHECKS_PER_ACCOUNT);
    assert.ok(waits.filter((w) => w > 0).every((w) => w > 14 * 60 && w <= 15 * 60));
  });

  it('an address the owner signed in from is known: it keeps its checks while the account is over its bound', async () => {
    const g = guards();
    assert.equal(await g.signIn.attempt('usr_known', '192.0.2.10'), 0);
    await g.signIn.succeeded('usr_known', '192.0.2.10');
    for (let i = 0; i < 100; i++) await g.signIn.attempt('usr_known', `10.2.${i >> 8}.${i & 255}`);
    assert.ok((await g.signIn.attempt('usr_known', '10.3.0.1')) > 0, 'a new address waits');
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS; i++) assert.equal(await g.signIn.attempt('usr_known', '192.0.2.10'), 0, `known, try ${i + 1}`);
    assert.ok((await g.signIn.attempt('usr_known', '192.0.2.10')) > 0, 'and has its own 10');
  });

  it('spends attempts atomically: 200 concurrent tries from one address get exactly 10 checks, and add nothing past them to the account', async () => {
    const g = guards();
    const waits = await Promise.all(Array.from({ length: 200 }, () => g.signIn.attempt('usr_flood', '203.0.113.1')));
    assert.equal(waits.filter((w) => w === 0).length, SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS);
    // The account spent 10 of its 30: 20 more from other addresses.
    const others = await Promise.all(Array.from({ length: 25 }, (_, i) => g.signIn.attempt('usr_flood', `10.4.0.${i}`)));
    assert.equal(others.filter((w) => w === 0).length, SIGN_IN_CHECKS_PER_ACCOUNT - SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS);
  });

  it('limits failures per address across accounts, so one address cannot lock out everyone', async () => {
    const g = guards();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ADDRESS; i++) assert.equal(await g.signIn.attempt(`usr_${i}`, '192.0.2.7'), 0);
    assert.ok((await g.signIn.attempt('usr_next', '192.0.2.7')) > 0);
    assert.equal(await g.signIn.attempt('usr_next', '192.0.2.8'), 0);
  });

  it('forgets the address’s failures on the account after a correct password, and gives the check back', async () => {
    const g = guards();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS; i++) await g.signIn.attempt('usr_forget', '198.51.100.1');
    await g.signIn.succeeded('usr_forget', '198.51.100.1');
    assert.equal(await g.signIn.attempt('usr_forget', '198.51.100.1'), 0);
  });
});

describe('sign-up guard', () => {
  it('allows 10 sign-ups per address per hour by default', async () => {
    const g = guards();
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS; i++) assert.equal(await g.signUp.attempt('203.0.113.9'), 0);
    const wait = await g.signUp.attempt('203.0.113.9');
    assert.ok(wait > 59 * 60 && wait <= 3600, `${wait}`);
    assert.equal(await g.signUp.attempt('203.0.113.10'), 0);
  });
});

describe('canonicalEmail', () => {
  it('folds width, case and surrounding space to one form', () => {
    assert.equal(canonicalEmail('  Victim@Example.TEST '), 'victim@example.test');
    assert.equal(canonicalEmail('ｖｉｃｔｉｍ@example.test'), 'victim@example.test');
    // U+0130 folds to i + U+0307 in JavaScript: a different address, never "victim".
    assert.notEqual(canonicalEmail('vİctim@example.test'), 'victim@example.test');
  });
});
