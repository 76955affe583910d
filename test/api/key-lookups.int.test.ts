import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { startServer, type SeededKey, type TestServer } from '../harness';

// Key lookups kept in memory on the embedded database (server/modules/keys/lookup-cache.ts,
// docs/security.md "Key lookups on the embedded database"): every change to what a lookup reads
// is seen by the very next request, whichever way it was written — through the API, or by any
// statement on the tables (the database's trigger signals it). Run on both databases: on
// PostgreSQL nothing is kept, and the same answers hold.

let api: TestServer;
let keptLookupsOf: typeof import('../../server/modules/keys/lookup-cache').keptLookupsOf;
before(async () => {
  api = await startServer();
  ({ keptLookupsOf } = await import('../../server/modules/keys/lookup-cache'));
});
after(() => api?.close());

const list = (key: SeededKey) => api.request('GET', '/v1/agents', { key: key.key });
const errorCode = (res: { body: unknown }) => (res.body as { error?: { code?: string } }).error?.code;

/** A key that has answered once, so that the embedded database keeps its lookup. */
async function usedKey(opts: Parameters<TestServer['seed']['key']>[0] = {}): Promise<SeededKey> {
  const key = await api.seed.key({ scopes: ['agents:read', 'agents:write'], ...opts });
  assert.equal((await list(key)).status, 200);
  return key;
}

describe('key lookups', () => {
  it('are kept on the embedded database only', async () => {
    await usedKey();
    const kept = keptLookupsOf(api.db);
    if (api.kind === 'pglite') assert.ok(kept && kept.size > 0, 'no lookup kept on the embedded database');
    else assert.equal(kept, undefined);
  });

  it('see a revoke through the API at once', async () => {
    const key = await usedKey({ scopes: ['agents:read', 'keys:manage'] });
    const other = await usedKey({ workspace: key.workspace, environment: key.environment, scopes: ['agents:read', 'keys:manage'] });
    assert.equal((await api.request('DELETE', `/v1/keys/${key.id}`, { key: other.key })).status, 200);
    const res = await list(key);
    assert.equal(res.status, 401);
    assert.equal(errorCode(res), 'api_key_revoked');
  });

  it('see a revoke, an expiry and a narrower scope written straight to the table at once', async () => {
    const revoked = await usedKey();
    await api.query(sql`update api_keys set revoked_at = now() where id = ${revoked.id}`);
    assert.equal(errorCode(await list(revoked)), 'api_key_revoked');

    const expired = await usedKey();
    await api.query(sql`update api_keys set expires_at = now() - interval '1 second' where id = ${expired.id}`);
    assert.equal(errorCode(await list(expired)), 'api_key_expired');

    const narrowed = await usedKey();
    await api.query(sql`update api_keys set scopes = '{keys:manage}' where id = ${narrowed.id}`);
    const res = await list(narrowed);
    assert.equal(res.status, 403);
    assert.equal(errorCode(res), 'insufficient_scope');
  });

  it('see a deleted key, and a changed plan of its workspace, at once', async () => {
    const deleted = await usedKey();
    await api.query(sql`delete from api_keys where id = ${deleted.id}`);
    assert.equal(errorCode(await list(deleted)), 'invalid_api_key');

    const key = await usedKey({ plan: 'starter' });
    assert.equal((await list(key)).headers.get('x-ratelimit-limit'), '60');
    await api.query(sql`update workspaces set plan = 'professional' where id = ${key.workspace.id}`);
    assert.equal((await list(key)).headers.get('x-ratelimit-limit'), '300');
  });

  it('are not dropped by changes that do not concern them, nor by a revoke rolled back', async () => {
    const key = await usedKey();
    await api.query(sql`update api_keys set name = 'renamed', last_used_at = now() where id = ${key.id}`);
    await assert.rejects(
      api.db.transaction(async (tx) => {
        await tx.execute(sql`update api_keys set revoked_at = now() where id = ${key.id}`);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    const kept = keptLookupsOf(api.db);
    if (kept) assert.ok(kept.size > 0, 'a change that concerns no lookup dropped them');
    assert.equal((await list(key)).status, 200);
  });
});
