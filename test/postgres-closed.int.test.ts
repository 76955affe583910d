// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { it } from 'node:test';
import postgres from 'postgres';
import { DB_KIND, PG_ADMIN_URL } from './harness';

// postgres.js 3.4.9 buffers small writes behind a setImmediate; when the connection closed
// before it ran, the write hit a null socket and threw from the immediate: an uncaughtException
// that takes the whole process down (upstream issues #1154 and #1208). Our transactions hold
// reserved connections (db/transaction.ts), the case where it happens most: a backend that dies
// under one. patches/postgres+3.4.9.patch drops the write and rejects what waited on it
// (docs/platform-notes.md, "postgres.js writing to a closed connection"). Unpatched, this
// crashed in 3 runs of 4 here.

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';

/** The query's outcome, or 'pending' after `ms` (a separate, older hang of the driver: docs/platform-notes.md). */
const settle = (q: Promise<unknown>, ms: number) =>
  Promise.race([q.then(() => 'ok', (e: { code?: string }) => e.code ?? 'error'), new Promise<string>((r) => setTimeout(() => r('pending'), ms))]);

it('a reserved connection whose backend is killed rejects its queries, never crashes the process', { skip }, async () => {
  const uncaught: Error[] = [];
  const onUncaught = (err: Error) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 0; attempt < 4; attempt++) {
      const sql = postgres(PG_ADMIN_URL, { max: 2, onnotice: () => {} });
      const reserved = await sql.reserve();
      const [{ pid }] = (await reserved`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
      await admin`select pg_terminate_backend(${pid})`;
      const outcomes: string[] = [];
      for (let i = 0; i < 3; i++) {
        outcomes.push(await settle(reserved`select 1`, 500));
        await new Promise((r) => setImmediate(r));
      }
      assert.ok(!outcomes.includes('ok'), `a query on the dead connection succeeded: ${outcomes.join(', ')}`);
      reserved.release();
      await sql.end({ timeout: 1 });
    }
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(uncaught.map((e) => e.message), []);
  } finally {
    process.off('uncaughtException', onUncaught);
    await admin.end({ timeout: 1 });
  }
});
