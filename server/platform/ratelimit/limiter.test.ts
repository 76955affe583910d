import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { consume, decide, decideGroup, type Decision, type Window } from './limiter';

const UNCAPPED = 2 ** 31 - 1;
let n = 0;
const counter = (duration: number) => new RateLimiterMemory({ keyPrefix: `t${++n}`, points: UNCAPPED, duration });
const minute = (limit: number, c = counter(60)): Window => ({ name: 'minute', limit, counter: c });
const day = (limit: number, c = counter(86_400)): Window => ({ name: 'day', limit, counter: c });

describe('rate limit windows', () => {
  it('allow exactly the limit, then refuse with Retry-After in whole seconds', async () => {
    const w = [minute(3)];
    const now = Date.now();
    for (const remaining of [2, 1, 0]) {
      const d = await consume('k', w, now);
      assert.equal(d.allowed, true);
      assert.equal(d.headers['X-RateLimit-Limit'], '3');
      assert.equal(d.headers['X-RateLimit-Remaining'], String(remaining));
      assert.equal(d.headers['Retry-After'], undefined);
    }
    const refused = await consume('k', w, now);
    assert.equal(refused.allowed, false);
    assert.equal(refused.headers['X-RateLimit-Remaining'], '0');
    const retry = refused.headers['Retry-After']!;
    assert.match(retry, /^\d+$/);
    assert.ok(Number(retry) >= 1 && Number(retry) <= 60, retry);
  });

  it('report Reset as Unix seconds at the end of the window', async () => {
    const now = Date.now();
    const d = await consume('k', [minute(10)], now);
    const reset = Number(d.headers['X-RateLimit-Reset']);
    assert.ok(Number.isInteger(reset));
    assert.ok(reset >= Math.floor(now / 1000) + 59 && reset <= Math.ceil(now / 1000) + 60, `${reset} vs ${now}`);
  });

  it('count each key on its own', async () => {
    const w = [minute(1)];
    assert.equal((await consume('a', w)).allowed, true);
    assert.equal((await consume('a', w)).allowed, false);
    assert.equal((await consume('b', w)).allowed, true);
  });

  it('describe the window with the fewest requests left', async () => {
    const w = [minute(10), day(3)];
    const d = await consume('k', w);
    assert.equal(d.headers['X-RateLimit-Limit'], '3');
    assert.equal(d.headers['X-RateLimit-Remaining'], '2');
    const loose = await consume('k2', [minute(2), day(100)]);
    assert.equal(loose.headers['X-RateLimit-Limit'], '2');
  });

  it('do not charge the day when the minute refuses', async () => {
    const days = counter(86_400);
    const w = [minute(2), day(100, days)];
    for (let i = 0; i < 5; i++) await consume('k', w);
    assert.equal((await days.get('k'))?.consumedPoints, 2);
  });

  it('give the minute its point back when the day refuses', async () => {
    const minutes = counter(60);
    const w = [minute(10, minutes), day(2)];
    assert.equal((await consume('k', w)).allowed, true);
    assert.equal((await consume('k', w)).allowed, true);
    const refused = await consume('k', w);
    assert.equal(refused.allowed, false);
    assert.equal(refused.headers['X-RateLimit-Limit'], '2');
    assert.equal((await minutes.get('k'))?.consumedPoints, 2);
  });

  it('allow requests again once the window has passed', async () => {
    const w = [{ name: 'minute' as const, limit: 1, counter: counter(1) }];
    assert.equal((await consume('k', w)).allowed, true);
    const refused = await consume('k', w);
    assert.equal(refused.allowed, false);
    assert.equal(refused.headers['Retry-After'], '1');
    // Time is the subject: the one-second window has to pass.
    await new Promise((resolve) => setTimeout(resolve, 1050));
    assert.equal((await consume('k', w)).allowed, true);
  });
});

describe('a decision from counts a store made in one step', () => {
  const now = 1_800_000_000_000;
  const minute = (consumed: number, limit = 10) => ({ limit, consumed, msBeforeNext: 30_000 });
  const day = (consumed: number, limit = 100) => ({ limit, consumed, msBeforeNext: 3_600_000 });

  it('refuses by the minute first, with its headers', () => {
    assert.deepEqual(decide(minute(11), day(200), now), {
      allowed: false,
      headers: { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1800000030', 'Retry-After': '30' },
    });
  });

  it('refuses by the day when the minute allows', () => {
    const d = decide(minute(3), day(101), now);
    assert.equal(d.allowed, false);
    assert.equal(d.headers['X-RateLimit-Limit'], '100');
    assert.equal(d.headers['Retry-After'], '3600');
  });

  it('allows with the headers of the window with the fewest requests left (the minute on a tie)', () => {
    assert.equal(decide(minute(3), day(98), now).headers['X-RateLimit-Limit'], '100');
    assert.equal(decide(minute(8), day(98), now).headers['X-RateLimit-Limit'], '10');
    assert.equal(decide(minute(3), null, now).headers['X-RateLimit-Remaining'], '7');
  });
});

describe('the decisions of a group of requests charged in one step', () => {
  it('are those of the same requests counted one by one, from any counts, with or without a day window', async () => {
    const now = 1_800_000_000_000;
    let cases = 0;
    for (const perMinute of [1, 2, 4]) {
      for (const perDay of [null, 1, 3, 5]) {
        for (let m0 = 0; m0 <= 5; m0++) {
          for (let d0 = 0; d0 <= 6; d0++) {
            if (perDay === null && d0 > 0) continue;
            for (let n = 1; n <= 7; n++) {
              // One by one, with the counters starting at (m0, d0).
              const minutes = counter(60);
              const days = counter(86_400);
              if (m0 > 0) await minutes.consume('k', m0);
              if (d0 > 0) await days.consume('k', d0);
              const w = [minute(perMinute, minutes), ...(perDay === null ? [] : [day(perDay, days)])];
              const oneByOne: Decision[] = [];
              for (let i = 0; i < n; i++) oneByOne.push(await consume('k', w, now));
              // The group, from the counts the one-by-one requests left behind.
              const after = { m: (await minutes.get('k'))?.consumedPoints ?? 0, mMs: 60_000, d: (await days.get('k'))?.consumedPoints ?? 0, dMs: 86_400_000 };
              const grouped = decideGroup(after, n, perMinute, perDay, now);
              const view = (d: Decision) => [d.allowed, d.headers['X-RateLimit-Limit'], d.headers['X-RateLimit-Remaining']];
              assert.deepEqual(grouped.map(view), oneByOne.map(view), `[${perMinute}, ${perDay}] from (${m0}, ${d0}), ${n} requests`);
              cases++;
            }
          }
        }
      }
    }
    assert.ok(cases > 500, String(cases));
  });
});
