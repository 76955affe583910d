// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import type { CreatedKey, KeyList } from './types';

// Keyset pagination of GET /v1/keys over real HTTP (docs/api.md, "Pagination").

let api: TestServer;
let admin: SeededKey;
let all: string[]; // every active key of the workspace, newest first

before(async () => {
  api = await startServer();
  admin = await api.seed.key({ name: 'admin', ...UNLIMITED });
  for (let i = 0; i < 25; i++) {
    const res = await api.request<CreatedKey>('POST', '/v1/keys', { key: admin.key, body: { name: `k${i}` } });
    expectStatus(res, 201);
  }
  const res = await page('?limit=100');
  all = res.data.map((k) => k.id);
});
after(() => api?.close());

async function page(query: string): Promise<KeyList> {
  const res = await api.request<KeyList>('GET', `/v1/keys${query}`, { key: admin.key });
  expectStatus(res, 200);
  return res.body;
}
const ids = (p: KeyList) => p.data.map((k) => k.id);

describe('GET /v1/keys pagination', () => {
  it('lists every key newest first (26 = 25 created + the caller)', () => {
    assert.equal(all.length, 26);
    assert.deepEqual([...all].sort().reverse(), all);
    assert.equal(all.at(-1), admin.id);
  });

  it('gives 20 items by default, with hasMore and nextCursor but no prevCursor', async () => {
    const p = await page('');
    assert.deepEqual(ids(p), all.slice(0, 20));
    assert.equal(p.hasMore, true);
    assert.equal(p.nextCursor, all[19]);
    assert.equal('prevCursor' in p, false);
  });

  it('walks forwards with after until hasMore is false, then back with before via prevCursor', async () => {
    const forward: KeyList[] = [];
    let cursor = '';
    for (;;) {
      const p = await page(`?limit=7${cursor}`);
      forward.push(p);
      if (!p.hasMore) break;
      assert.ok(p.nextCursor);
      cursor = `&after=${p.nextCursor}`;
    }
    assert.deepEqual(forward.flatMap(ids), all, 'forward walk repeats or skips');
    assert.equal(forward.length, 4);
    const last = forward.at(-1)!;
    assert.equal('nextCursor' in last, false);
    for (const p of forward.slice(1)) assert.equal(p.prevCursor, p.data[0]!.id);

    const backward: KeyList[] = [last];
    let p = last;
    while (p.prevCursor) {
      p = await page(`?limit=7&before=${p.prevCursor}`);
      backward.unshift(p);
    }
    assert.deepEqual(backward.flatMap(ids), all, 'backward walk repeats or skips');
    assert.equal('prevCursor' in backward[0]!, false);
    for (const q of backward) assert.deepEqual(ids(q), [...ids(q)].sort().reverse(), 'page not newest first');
  });

  it('accepts a cursor naming a revoked key', async () => {
    const gone = all[10]!;
    expectStatus(await api.request('DELETE', `/v1/keys/${gone}`, { key: admin.key }), 200);
    const rest = all.filter((id) => id !== gone);
    assert.deepEqual(ids(await page(`?limit=5&after=${gone}`)), all.slice(11, 16));
    assert.deepEqual(ids(await page(`?limit=5&before=${gone}`)), all.slice(5, 10));
    assert.deepEqual(ids(await page('?limit=100')), rest);
    all = rest;
  });

  it('never repeats or skips while keys are being added during the walk', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const p = await page(`?limit=6${cursor}`);
      seen.push(...ids(p));
      await api.request('POST', '/v1/keys', { key: admin.key, body: { name: 'added meanwhile' } });
      if (!p.hasMore) break;
      cursor = `&after=${p.nextCursor}`;
    }
    assert.deepEqual(seen, all);
  });

  it('answers an empty page with no cursors where there are no keys', async () => {
    const live = await api.seed.key({ workspace: admin.workspace, environment: 'live' });
    expectStatus(await api.request('DELETE', `/v1/keys/${live.id}`, { key: live.key }), 200);
    const other = await api.seed.key({ workspace: admin.workspace, environment: 'live' });
    const res = await api.request<KeyList>('GET', `/v1/keys?after=${other.id}`, { key: other.key });
    expectStatus(res, 200);
    assert.deepEqual(res.body, { data: [], hasMore: false });
  });
});

describe('limit is a plain decimal number (docs/security.md)', () => {
  // `z.coerce.number()` read `1e2` as 100 and `0x10` as 16, and `limit=` was the default.
  for (const limit of ['1e2', '0x10', '', ' 5', '5 ', '+5', '5.0', '-5', '0', '101', '1e400']) {
    it(`limit=${JSON.stringify(limit)} is 400 invalid_parameter on limit, on every list`, async () => {
      for (const list of ['/v1/keys', '/v1/agents', '/v1/executions', '/v1/webhooks', '/v1/events', '/v1/conversations', '/v1/schedules', '/v1/budgets']) {
        const res = await api.request('GET', `${list}?limit=${encodeURIComponent(limit)}`, { key: admin.key });
        const err = expectError(res, 400, 'invalid_parameter', 'limit');
        assert.match(err.message, /whole number from 1 to 100/, list);
      }
    });
  }

  it('limit=5 and limit=05 are five items', async () => {
    const five = ids(await page('?limit=5'));
    assert.equal(five.length, 5);
    assert.deepEqual(ids(await page('?limit=05')), five);
  });
});
