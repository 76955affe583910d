// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { apiKeys } from '../../../db/schema';
import { bareTestDatabase, DB_KIND } from '../../../test/harness';
import { seedTenant } from '../../../test/seed-db';
import { newId } from '../ids';
import { StreamGuard } from './guard';

// The guard ends the streams of a revoked key within seconds (its check every CHECK_MS). A stream
// opened while a check's lookup is under way was not looked up, and must not be ended by it: the
// lookup is held here by a lock on api_keys (PostgreSQL: a second connection), the stream opened
// meanwhile.

describe('stream guard: the revocation check', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only (a lock held from a second connection)' }, () => {
  let database: Database;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ database, close: cleanup } = await bareTestDatabase());
  });
  after(async () => {
    await cleanup?.();
  });

  const key = async (workspaceId: string) => {
    const id = newId('key');
    await database.db.insert(apiKeys).values({ id, workspaceId, environment: 'live', name: 'k', prefix: id.slice(0, 16), hash: randomUUID(), scopes: ['executions:write'] });
    return id;
  };
  const check = (g: StreamGuard) => (g as unknown as { check(): Promise<void> }).check();

  it('does not end a stream opened while it looked its holders up; it still ends a revoked key’s', async () => {
    const t = await seedTenant(database.db, 'Guard');
    const [a, b] = [await key(t.workspaceId), await key(t.workspaceId)];
    const guard = new StreamGuard(database.db);
    const sa = await guard.acquire({ kind: 'key', id: a, workspaceId: t.workspaceId });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = database.sql!.begin(async (tx) => {
      await tx`lock table api_keys in access exclusive mode`;
      locked();
      await gate;
    });
    await isLocked;
    const checking = check(guard);
    // The lookup waits for the lock; key b's first stream opens meanwhile.
    const sb = await guard.acquire({ kind: 'key', id: b, workspaceId: t.workspaceId });
    release();
    await holder;
    await checking;
    assert.equal(sb.signal.aborted, false, 'the stream opened during the lookup is open');
    assert.equal(sa.signal.aborted, false, 'a valid key’s stream is open');
    // Revoked: the next check ends its streams.
    await database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, a));
    await check(guard);
    assert.equal(sa.signal.aborted, true, 'the revoked key’s stream is ended');
    assert.equal(sb.signal.aborted, false);
    sa.close();
    sb.close();
    await guard.stop();
  });
});
