import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isNull } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { apiKeys, workspaces, type Environment } from '../../db/schema';
import { bareTestDatabase } from '../../test/harness';
import { ApiError } from './errors';
import { newId } from './ids';
import { keysetList, type ListScope } from './keyset';
import type { Page } from './pagination';

// The generic keyset list on the real database (PGlite or PostgreSQL, as TEST_DB says): scoped
// to one workspace and environment, narrowed by equality filters, with the envelope of
// pagination.ts. Exercised on api_keys, whose `name` stands in for a filter column.

let database: Database;
let cleanup: () => Promise<void>;
before(async () => {
  ({ database, close: cleanup } = await bareTestDatabase());
});
after(() => cleanup?.());

const list = keysetList({
  name: 'keyset_test',
  prefix: 'key',
  table: apiKeys,
  columns: { id: apiKeys.id, name: apiKeys.name, environment: apiKeys.environment },
  where: isNull(apiKeys.revokedAt),
  filters: { name: apiKeys.name },
});

const scope = (workspaceId: string, environment: Environment): ListScope => ({ workspaceId, environment });

async function seed(workspaceId: string, environment: Environment, names: string[], revoked = false): Promise<string[]> {
  const ids = names.map(() => newId('key'));
  await database.db.insert(apiKeys).values(
    ids.map((id, i) => ({
      id,
      workspaceId,
      environment,
      name: names[i]!,
      prefix: id.slice(0, 16),
      hash: `hash-${id}`,
      scopes: ['agents:read'],
      revokedAt: revoked ? new Date() : null,
    })),
  );
  return ids;
}

const ids = (p: Page<{ id: string }>) => p.data.map((r) => r.id);
const newestFirst = (xs: string[]) => [...xs].sort().reverse();

describe('keysetList', () => {
  let a: string;
  let b: string;
  let older: string[]; // A/test, made before the other scopes' rows
  let newer: string[]; // A/test, made after them
  let aTest: string[];
  let aTestX: string[];
  let aLive: string[];
  let bTest: string[];
  before(async () => {
    [a, b] = [newId('ws'), newId('ws')];
    await database.db.insert(workspaces).values([
      { id: a, name: 'A' },
      { id: b, name: 'B' },
    ]);
    const names = ['x', 'y', 'y', 'x', 'y', 'y', 'x', 'y', 'y'];
    older = await seed(a, 'test', names.slice(0, 5));
    await seed(a, 'test', ['x', 'y'], true);
    aLive = await seed(a, 'live', ['x', 'y']);
    bTest = await seed(b, 'test', ['x', 'x', 'y']);
    newer = await seed(a, 'test', names.slice(5));
    aTest = [...older, ...newer];
    aTestX = aTest.filter((_, i) => names[i] === 'x');
  });

  it('lists the rows of one workspace and environment only, newest first, with the fixed condition', async () => {
    assert.deepEqual(ids(await list.page(database.db, scope(a, 'test'), { limit: 100 })), newestFirst(aTest));
    assert.deepEqual(ids(await list.page(database.db, scope(a, 'live'), { limit: 100 })), newestFirst(aLive));
    assert.deepEqual(ids(await list.page(database.db, scope(b, 'test'), { limit: 100 })), newestFirst(bTest));
    assert.deepEqual(await list.page(database.db, scope(b, 'live'), {}), { data: [], hasMore: false });
  });

  it('selects the declared columns', async () => {
    const [row] = (await list.page(database.db, scope(a, 'live'), { limit: 1 })).data;
    assert.deepEqual(Object.keys(row!).sort(), ['environment', 'id', 'name']);
    assert.equal(row!.environment, 'live');
  });

  it('narrows by a filter, in the scope only; an undefined filter does not narrow', async () => {
    assert.deepEqual(ids(await list.page(database.db, scope(a, 'test'), { name: 'x' })), newestFirst(aTestX));
    assert.deepEqual(ids(await list.page(database.db, scope(a, 'test'), { name: 'nobody' })), []);
    assert.equal((await list.page(database.db, scope(b, 'test'), { name: 'x' })).data.length, 2);
    assert.deepEqual(ids(await list.page(database.db, scope(a, 'test'), { name: undefined })), newestFirst(aTest));
  });

  it('pages a filtered list forwards and back with the envelope of pagination.ts', async () => {
    const all = newestFirst(aTestX);
    const first = await list.page(database.db, scope(a, 'test'), { name: 'x', limit: 2 });
    assert.deepEqual(first, { data: first.data, hasMore: true, nextCursor: all[1] });
    assert.deepEqual(ids(first), all.slice(0, 2));
    const second = await list.page(database.db, scope(a, 'test'), { name: 'x', limit: 2, after: first.nextCursor });
    assert.deepEqual(ids(second), all.slice(2));
    assert.equal(second.hasMore, false);
    assert.equal(second.prevCursor, all[2]);
    const back = await list.page(database.db, scope(a, 'test'), { name: 'x', limit: 2, before: second.prevCursor });
    assert.deepEqual(ids(back), all.slice(0, 2));
    assert.equal(back.prevCursor, undefined, 'nothing newer in the filtered list');
    assert.equal(back.nextCursor, all[1]);
  });

  it('keeps other workspaces and environments out of the pages and cursors around them', async () => {
    // B's, A/live's and revoked rows were made between `older` and `newer`.
    const top = await list.page(database.db, scope(a, 'test'), { limit: newer.length });
    assert.deepEqual(ids(top), newestFirst(newer));
    assert.equal(top.hasMore, true);
    const next = await list.page(database.db, scope(a, 'test'), { after: top.nextCursor });
    assert.deepEqual(ids(next), newestFirst(older));
    assert.equal(next.prevCursor, newestFirst(older)[0]);
    const back = await list.page(database.db, scope(a, 'test'), { before: next.prevCursor });
    assert.deepEqual(ids(back), newestFirst(newer));
    const live = await list.page(database.db, scope(a, 'live'), { before: aLive[0] });
    assert.deepEqual(ids(live), [aLive[1]], 'A/live sees none of the newer A/test rows');
    assert.equal(live.prevCursor, undefined);
  });

  it('refuses a cursor of another kind before any query', async () => {
    await assert.rejects(
      list.page(database.db, scope(a, 'test'), { after: newId('agt') }),
      (err: unknown) => err instanceof ApiError && err.code === 'invalid_cursor' && err.param === 'after',
    );
  });
});
