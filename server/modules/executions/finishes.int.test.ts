import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { bareTestDatabase } from '../../../test/harness';
import { seedTenant, type SeededTenant } from '../../../test/seed-db';
import { newId } from '../../platform/ids';
import { startExecution } from './service';
import { cancel, claimQueued, type ExecutionRow } from './lifecycle';
import { finishTogether } from './finishes';

// The usual ends of a process's runs, together (finishes.ts): the ends asked for at once commit
// in one transaction, and each keeps what it would have alone — its guard (a run cancelled first
// stays cancelled), its terminal event, usage record, messages and freed conversation, the
// hand-on of its conversation's next turn — and a bad write fails its own run alone. On both
// databases: PostgreSQL pipelines the batch's writes, PGlite awaits each.

let database: Database;
let cleanup: () => Promise<void>;
before(async () => ({ database, close: cleanup } = await bareTestDatabase()));
after(async () => cleanup?.());

const db = () => database.db;
type T = SeededTenant;

async function running(t: T, input = 'hello', conversationId?: string): Promise<ExecutionRow> {
  await startExecution(db(), t, t.agentId, { input, ...(conversationId ? { conversationId, ifBusy: 'enqueue' as const } : {}) });
  const got = await claimQueued(db(), [{ tenant: t, count: 1 }], async () => null);
  return got!.rows[0]!;
}

const end = (row: ExecutionRow, parts?: { writes: ReturnType<typeof sql>[] }[]) =>
  finishTogether(
    db(),
    row.id,
    { status: 'succeeded', output: `answer ${row.id}`, messages: [{ id: newId('msg'), conversationId: row.conversationId, executionId: row.id, role: 'assistant', content: 'answer', modelMessage: { role: 'assistant', content: 'answer' } }] },
    { from: ['running'], attempt: row.attempt },
    { pending: [], terminalSeq: row.eventSeq, ...(parts ? { parts } : {}) },
  );

async function ended(ids: string[]) {
  return queryRows<{ id: string; status: string; txid: string; terminal: number; usage: number; assistant: number; active: string | null }>(
    db(),
    sql`select e.id, e.status, e.xmin::text as txid,
          (select count(*)::int from execution_events v where v.execution_id = e.id and v.type like 'execution.%' and v.type <> 'execution.started') as terminal,
          (select count(*)::int from usage_execution_records u where u.execution_id = e.id) as usage,
          (select count(*)::int from messages m where m.execution_id = e.id and m.role = 'assistant') as assistant,
          (select active_execution_id from conversations c where c.id = e.conversation_id) as active
        from executions e where e.id in ${sql`(${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`} order by e.id`,
  );
}

describe('the ends of a process’s runs, together', () => {
  it('each keeps its own outcome, and they commit in one transaction', async () => {
    const tenants = await Promise.all(Array.from({ length: 8 }, (_, i) => seedTenant(db(), `Together ${i}`)));
    const rows = await Promise.all(tenants.map((t) => running(t)));
    const out = await Promise.all(rows.map((r) => end(r)));
    assert.deepEqual(out.map((r) => r?.status), rows.map(() => 'succeeded'));
    assert.deepEqual(out.map((r) => r?.output), rows.map((r) => `answer ${r.id}`), 'each caller gets its own row');
    const after = await ended(rows.map((r) => r.id));
    for (const r of after) assert.deepEqual([r.status, r.terminal, r.usage, r.assistant, r.active], ['succeeded', 1, 1, 1, null], r.id);
    const txids = new Set(after.map((r) => r.txid));
    assert.ok(txids.size < after.length, `ends asked for at once share a transaction (${txids.size} for ${after.length})`);
  });

  it('a run cancelled first stays cancelled, its end gets null, and the others end', async () => {
    const tenants = await Promise.all(Array.from({ length: 5 }, (_, i) => seedTenant(db(), `Cancelled ${i}`)));
    const rows = await Promise.all(tenants.map((t) => running(t)));
    assert.equal((await cancel(db(), rows[2]!.id))?.status, 'cancelled');
    const out = await Promise.all(rows.map((r) => end(r)));
    assert.deepEqual(out.map((r) => r?.status ?? null), ['succeeded', 'succeeded', null, 'succeeded', 'succeeded']);
    const byId = new Map((await ended(rows.map((r) => r.id))).map((r) => [r.id, r]));
    assert.deepEqual([byId.get(rows[2]!.id)!.status, byId.get(rows[2]!.id)!.terminal, byId.get(rows[2]!.id)!.assistant], ['cancelled', 1, 0]);
    for (const i of [0, 1, 3, 4]) assert.equal(byId.get(rows[i]!.id)!.status, 'succeeded');
  });

  it('a bad write fails its own run alone; the others end', async () => {
    const tenants = await Promise.all(Array.from({ length: 4 }, (_, i) => seedTenant(db(), `Bad write ${i}`)));
    const rows = await Promise.all(tenants.map((t) => running(t)));
    const out = await Promise.allSettled(rows.map((r, i) => end(r, i === 1 ? [{ writes: [sql`insert into no_such_table values (1)`] }] : undefined)));
    assert.deepEqual(out.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    assert.match(String((out[1] as PromiseRejectedResult).reason), /no_such_table/);
    const byId = new Map((await ended(rows.map((r) => r.id))).map((r) => [r.id, r]));
    assert.deepEqual([byId.get(rows[1]!.id)!.status, byId.get(rows[1]!.id)!.usage], ['running', 0], 'nothing of the failed end was written');
    for (const i of [0, 2, 3]) assert.deepEqual([byId.get(rows[i]!.id)!.status, byId.get(rows[i]!.id)!.usage], ['succeeded', 1]);
  });

  it('an end hands its conversation on to the turn waiting behind it', async () => {
    const tenants = await Promise.all(Array.from({ length: 3 }, (_, i) => seedTenant(db(), `Hand-on ${i}`)));
    const rows = await Promise.all(tenants.map((t) => running(t)));
    const next = await Promise.all(tenants.map((t, i) => startExecution(db(), t, t.agentId, { input: 'next', conversationId: rows[i]!.conversationId, ifBusy: 'enqueue' }).then((r) => r.row)));
    await Promise.all(rows.map((r) => end(r)));
    const [taken] = await queryRows<{ n: number }>(
      db(),
      sql`select count(*)::int as n from conversations c join executions e on e.id = c.active_execution_id
          where e.id in ${sql`(${sql.join(next.map((r) => sql`${r.id}`), sql`, `)})`} and e.waiting_turn is null and e.status = 'queued'`,
    );
    assert.equal(taken!.n, 3, 'each conversation was handed to its next turn');
  });
});
