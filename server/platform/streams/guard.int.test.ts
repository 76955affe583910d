// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { apiKeys } from '../../../db/schema';
import { DB_KIND } from '../../../test/harness';
import { bareTestDatabaseHooks } from '../../../test/bare-db';
import { seedTenant } from '../../../test/seed-db';
import { newId } from '../ids';
import { StreamGuard } from './guard';
import { writesTo } from '../../../test/socket-writes';

// The guard ends the streams of a revoked key within seconds (its check every CHECK_MS). A stream
// opened while a check's lookup is under way was not looked up, and must not be ended by it: the
// lookup is held here by a lock on api_keys (PostgreSQL: a second connection), the stream opened
// meanwhile.

describe('stream guard: the revocation check', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only (a lock held from a second connection)' }, () => {
  const bare = bareTestDatabaseHooks();

  const key = async (workspaceId: string) => {
    const id = newId('key');
    await bare().db.insert(apiKeys).values({ id, workspaceId, environment: 'live', name: 'k', prefix: id.slice(0, 16), hash: randomUUID(), scopes: ['executions:write'] });
    return id;
  };
  const check = (g: StreamGuard) => (g as unknown as { check(): Promise<void> }).check();

  it('does not end a stream opened while it looked its holders up; it still ends a revoked key’s', async () => {
    const t = await seedTenant(bare().db, 'Guard');
    const [a, b] = [await key(t.workspaceId), await key(t.workspaceId)];
    const guard = new StreamGuard(bare().db);
    const sa = await guard.acquire({ kind: 'key', id: a, workspaceId: t.workspaceId });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = bare().sql!.begin(async (tx) => {
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
    await bare().db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, a));
    await check(guard);
    assert.equal(sa.signal.aborted, true, 'the revoked key’s stream is ended');
    assert.equal(sb.signal.aborted, false);
    sa.close();
    sb.close();
    await guard.stop();
  });

  it('does not count the expired leases of a process that died, and its renewal sweeps them away', async () => {
    const t = await seedTenant(bare().db, 'Expired');
    const a = await key(t.workspaceId);
    // A dead process's 100 leases of key a: the most a key may hold, expired a minute ago.
    await bare().sql!`insert into stream_leases (id, holder, workspace_id, process, expires_at)
      select gen_random_uuid()::text, ${`key:${a}`}, ${t.workspaceId}, 'dead', now() - interval '1 minute' from generate_series(1, 100)`;
    const guard = new StreamGuard(bare().db);
    const s = await guard.acquire({ kind: 'key', id: a, workspaceId: t.workspaceId });
    assert.equal(s.signal.aborted, false, 'a stream opens: the expired leases do not count');
    await (guard as unknown as { renew(): Promise<void> }).renew();
    const rows = await bare().sql!<{ process: string }[]>`select process from stream_leases where holder = ${`key:${a}`}`;
    assert.deepEqual(
      rows.map((r) => r.process),
      [(guard as unknown as { process: string }).process],
      'only the live lease is left',
    );
    s.close();
    await guard.stop();
  });

  it('takes a lease in one write to the database: the workspace’s lock is never held across a turn of this process', async () => {
    const t = await seedTenant(bare().db, 'One write');
    const a = await key(t.workspaceId);
    const guard = new StreamGuard(bare().db);
    const holder = { kind: 'key' as const, id: a, workspaceId: t.workspaceId };
    (await guard.acquire(holder)).close(); // its statements' first run asks for their types: a round trip more
    await new Promise((r) => setTimeout(r, 50)); // (the close's delete)
    const writes = writesTo(bare().sql!);
    const s = await guard.acquire(holder);
    // Awaited statement by statement it took three (BEGIN; the lock, the count and the insert;
    // COMMIT), the lock held from the second's answer to the third, across this process's turns:
    // 200 streams of one workspace opened at once got their leases one after the other.
    assert.equal(writes.stop(), 1);
    assert.equal(guard.openOf(`key:${a}`), 1);
    s.close();
    await guard.stop();
  });
});

describe('stream guard: leases counted in the process (the embedded database)', () => {
  it('counts per key and per workspace in memory, gives a place back on close, and writes no lease row', async () => {
    const db = new Proxy({} as Database['db'], {
      get: () => {
        throw new Error('no statement expected');
      },
    });
    const guard = new StreamGuard(db, { leases: 'process' });
    const holder = { kind: 'key' as const, id: 'key_a', workspaceId: 'ws_1' };
    const opened = await Promise.all(Array.from({ length: 100 }, () => guard.acquire(holder)));
    await assert.rejects(guard.acquire(holder), (err: Error & { code?: string }) => err.code === 'rate_limit_exceeded' && /this API key/.test(err.message));
    assert.equal(guard.openOf('key:key_a'), 100);
    opened[0]!.close();
    opened[0]!.close();
    assert.equal(guard.openOf('key:key_a'), 99, 'a second close gives nothing more back');
    const again = await guard.acquire(holder);
    assert.equal(again.signal.aborted, false);
    for (const s of [...opened, again]) s.close();
    assert.equal(guard.size, 0);
    // The workspace's 1,000, over ten keys; the next key's first stream is refused for the workspace.
    const many = await Promise.all(Array.from({ length: 1_000 }, (_, i) => guard.acquire({ kind: 'key', id: `key_${i % 10}`, workspaceId: 'ws_2' })));
    await assert.rejects(guard.acquire({ kind: 'key', id: 'key_new', workspaceId: 'ws_2' }), /for this workspace/);
    assert.equal((await guard.acquire({ kind: 'key', id: 'key_new', workspaceId: 'ws_3' })).signal.aborted, false, 'another workspace is not held back');
    for (const s of many) s.close();
    await guard.stop();
  });
});
