import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ApiError } from './errors';
import { newId } from './ids';
import { paginate, pageQuerySchema, planPage, type KeysetSource, type Page, type PageParams } from './pagination';

interface Item {
  id: string;
}

/** An in-memory keyset over ids (ULIDs sort by creation time). */
class MemorySource implements KeysetSource<Item> {
  items: Item[] = [];
  add(n: number): Item[] {
    const added = Array.from({ length: n }, () => ({ id: newId('key') }));
    this.items.push(...added);
    return added;
  }
  remove(id: string) {
    this.items = this.items.filter((i) => i.id !== id);
  }
  /** Newest first, like the API. */
  all(): string[] {
    return this.items.map((i) => i.id).sort().reverse();
  }
  async fetch(direction: 'older' | 'newer', cursor: string | undefined, take: number) {
    const sorted = [...this.items].sort((a, b) => (a.id < b.id ? 1 : -1));
    if (cursor === undefined) return sorted.slice(0, take);
    if (direction === 'older') return sorted.filter((i) => i.id < cursor).slice(0, take);
    return sorted.filter((i) => i.id > cursor).reverse().slice(0, take);
  }
  async exists(direction: 'older' | 'newer', id: string) {
    return this.items.some((i) => (direction === 'older' ? i.id < id : i.id > id));
  }
}

const page = (src: MemorySource, params: PageParams): Promise<Page<Item>> => paginate(planPage('key', params), src);
const ids = (p: Page<Item>) => p.data.map((i) => i.id);

function expectApiError(fn: () => unknown, code: string, param: string) {
  assert.throws(fn, (err: unknown) => err instanceof ApiError && err.status === 400 && err.code === code && err.param === param);
}

describe('planPage', () => {
  it('defaults to 20 items from the newest', () => {
    assert.deepEqual(planPage('key', {}), { limit: 20, direction: 'older', cursor: undefined });
  });

  it('reads after as older and before as newer', () => {
    const id = newId('key');
    assert.deepEqual(planPage('key', { limit: 5, after: id }), { limit: 5, direction: 'older', cursor: id });
    assert.deepEqual(planPage('key', { limit: 5, before: id }), { limit: 5, direction: 'newer', cursor: id });
  });

  it('refuses after and before together', () => {
    expectApiError(() => planPage('key', { after: newId('key'), before: newId('key') }), 'parameter_conflict', 'before');
  });

  it('refuses a cursor of another kind or malformed', () => {
    expectApiError(() => planPage('key', { after: newId('agt') }), 'invalid_cursor', 'after');
    expectApiError(() => planPage('key', { before: 'key_123' }), 'invalid_cursor', 'before');
    expectApiError(() => planPage('key', { after: '' }), 'invalid_cursor', 'after');
    expectApiError(() => planPage('key', { after: newId('key').toLowerCase() }), 'invalid_cursor', 'after');
  });
});

describe('page query', () => {
  const schema = z.strictObject(pageQuerySchema);
  it('accepts limit 1 to 100 (from query strings)', () => {
    assert.equal(schema.parse({ limit: '1' }).limit, 1);
    assert.equal(schema.parse({ limit: '100' }).limit, 100);
    assert.equal(schema.parse({}).limit, undefined);
  });
  it('refuses 0, 101, fractions and words', () => {
    for (const limit of ['0', '101', '2.5', 'abc', '-1']) {
      const r = schema.safeParse({ limit });
      assert.equal(r.success, false, limit);
      assert.deepEqual(r.error?.issues[0]?.path, ['limit']);
    }
  });
});

describe('paginate', () => {
  it('gives an empty page with no cursors when there is nothing', async () => {
    assert.deepEqual(await page(new MemorySource(), {}), { data: [], hasMore: false });
  });

  it('pages newest first with hasMore, nextCursor and prevCursor', async () => {
    const src = new MemorySource();
    src.add(25);
    const all = src.all();
    const first = await page(src, { limit: 10 });
    assert.deepEqual(ids(first), all.slice(0, 10));
    assert.equal(first.hasMore, true);
    assert.equal(first.nextCursor, all[9]);
    assert.equal(first.prevCursor, undefined);

    const second = await page(src, { limit: 10, after: first.nextCursor });
    assert.deepEqual(ids(second), all.slice(10, 20));
    assert.equal(second.nextCursor, all[19]);
    assert.equal(second.prevCursor, all[10]);

    const last = await page(src, { limit: 10, after: second.nextCursor });
    assert.deepEqual(ids(last), all.slice(20));
    assert.equal(last.hasMore, false);
    assert.equal(last.nextCursor, undefined);
    assert.equal(last.prevCursor, all[20]);

    const back = await page(src, { limit: 10, before: last.prevCursor });
    assert.deepEqual(ids(back), all.slice(10, 20));
    assert.equal(back.hasMore, true);
    assert.equal(back.prevCursor, all[10]);
  });

  it('gives the limit items just newer than before, and no prevCursor at the top', async () => {
    const src = new MemorySource();
    src.add(8);
    const all = src.all();
    const p = await page(src, { limit: 5, before: all[3] });
    assert.deepEqual(ids(p), all.slice(0, 3));
    assert.equal(p.prevCursor, undefined);
    assert.equal(p.nextCursor, all[2]);
    assert.equal(p.hasMore, true);
  });

  it('answers an exact last page without hasMore', async () => {
    const src = new MemorySource();
    src.add(10);
    const p = await page(src, { limit: 10 });
    assert.equal(p.data.length, 10);
    assert.equal(p.hasMore, false);
    assert.equal(p.nextCursor, undefined);
  });

  it('accepts a cursor naming a deleted item', async () => {
    const src = new MemorySource();
    src.add(6);
    const all = src.all();
    src.remove(all[2]!);
    assert.deepEqual(ids(await page(src, { limit: 10, after: all[2] })), all.slice(3));
    assert.deepEqual(ids(await page(src, { limit: 10, before: all[2] })), all.slice(0, 2));
  });

  it('walks forwards without repeats or gaps while items are added', async () => {
    const src = new MemorySource();
    src.add(23);
    const original = src.all();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      const p = await page(src, { limit: 4, after: cursor });
      seen.push(...ids(p));
      src.add(2); // newer than anything on the walk
      if (!p.hasMore) break;
      cursor = p.nextCursor;
    }
    assert.deepEqual(seen, original);
  });

  it('walks backwards from the oldest page without repeats, reaching the items added meanwhile', async () => {
    const src = new MemorySource();
    src.add(17);
    const original = src.all();
    let p = await page(src, { limit: 5, after: original[11] });
    assert.deepEqual(ids(p), original.slice(12));
    const pages = [ids(p)];
    const added: string[] = [];
    while (p.prevCursor) {
      added.push(...src.add(1).map((i) => i.id));
      p = await page(src, { limit: 5, before: p.prevCursor });
      pages.unshift(ids(p));
    }
    const seen = pages.flat();
    assert.equal(new Set(seen).size, seen.length, 'no repeats');
    assert.deepEqual(seen, src.all(), 'every item, newest first, including the added ones');
    assert.ok(added.every((id) => seen.includes(id)));
  });
});
