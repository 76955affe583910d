import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { bareTestDatabase, DB_KIND } from '../../../test/harness';
import { seedTenant, type SeededTenant } from '../../../test/seed-db';
import { newId } from '../../platform/ids';
import { CHANNELS, openBus, type Bus } from '../../platform/notify';
import { startExecution } from './service';
import { appendEvents, cancel, claimQueued, failLostExecutions, finish, fixedClock, heartbeat, LOST_AFTER_MS, type ExecutionRow } from './lifecycle';
import { recordedEvent } from './events';
import { until } from '../../../test/eventually';

// The lifecycle driven directly on the real database (PGlite or PostgreSQL, as TEST_DB says),
// without a server or a model: the races between the writers of `status` — a cancel and the
// worker's end, a hand-on and a cancel, a worker declared lost and its late writes, two
// finishers of one attempt. Each ends with exactly one final status, one terminal event, one
// usage record, and the conversation released once. The sweeper's time is an injected clock.

let database: Database;
let cleanup: () => Promise<void>;
let bus: Bus;
const cancels: string[] = [];
before(async () => {
  ({ database, close: cleanup } = await bareTestDatabase());
  bus = await openBus(database);
  bus.subscribe(CHANNELS.cancel, (id) => cancels.push(id));
});
after(async () => {
  await bus?.close();
  await cleanup?.();
});

const db = () => database.db;
type T = SeededTenant;
const tenant = () => seedTenant(db(), 'Lifecycle');

const start = (t: T, input: string, conversationId?: string) =>
  startExecution(db(), t, t.agentId, { input, ...(conversationId ? { conversationId, ifBusy: 'enqueue' as const } : {}) }).then((r) => r.row);

/** Claims a tenant's queued runs as a worker would: running, attempt 1. */
async function claim(t: T): Promise<ExecutionRow[]> {
  const got = await claimQueued(db(), [{ tenant: t, count: 10 }], async () => null);
  return got?.rows ?? [];
}

const worker = (row: ExecutionRow, status: 'succeeded' | 'failed' = 'succeeded') =>
  finish(
    db(),
    row.id,
    status === 'succeeded' ? { status, output: 'answer', messages: [{ id: newId('msg'), conversationId: row.conversationId, executionId: row.id, role: 'assistant', content: 'answer', modelMessage: { role: 'assistant', content: 'answer' } }] } : { status, error: { code: 'timeout', message: 'took too long' } },
    { from: ['running'], attempt: row.attempt },
    undefined,
    { pending: [], terminalSeq: row.eventSeq },
  );

interface State {
  status: string;
  errorCode: string | null;
  terminal: { type: string; seq: number }[];
  usage: number;
  assistant: number;
  active: string | null;
}
async function state(id: string): Promise<State> {
  const [row] = await queryRows<{ status: string; error_code: string | null; conversation_id: string; event_seq: number }>(db(), sql`select status, error_code, conversation_id, event_seq from executions where id = ${id}`);
  const terminal = await queryRows<{ type: string; seq: number }>(db(), sql`select type, seq from execution_events where execution_id = ${id} and type in ('execution.succeeded', 'execution.failed', 'execution.cancelled') order by seq`);
  const [counts] = await queryRows<{ usage: number; assistant: number }>(
    db(),
    sql`select (select count(*)::int from usage_execution_records where execution_id = ${id}) as usage,
               (select count(*)::int from messages where execution_id = ${id} and role = 'assistant') as assistant`,
  );
  const [conv] = await queryRows<{ active: string | null }>(db(), sql`select active_execution_id as active from conversations where id = ${row!.conversation_id}`);
  return { status: row!.status, errorCode: row!.error_code, terminal: terminal.map((e) => ({ type: e.type, seq: e.seq })), usage: counts!.usage, assistant: counts!.assistant, active: conv!.active };
}

describe('cancel and the worker’s end', () => {
  it('cancel first: the late end writes nothing; one execution.cancelled after every sequence number handed out, one usage record, the worker told', async () => {
    const t = await tenant();
    await start(t, 'hello');
    const [row] = await claim(t);
    assert.equal(row!.status, 'running');
    const cancelled = await cancel(db(), row!.id);
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(await worker(row!), null);
    const s = await state(row!.id);
    assert.deepEqual(s, { status: 'cancelled', errorCode: null, terminal: [{ type: 'execution.cancelled', seq: row!.eventSeq + 1 }], usage: 1, assistant: 0, active: null });
    await until('the cancel notification', () => cancels.includes(row!.id), { timeoutMs: 5_000 });
  });

  it('end first: the cancel changes nothing (the API answers 409)', async () => {
    const t = await tenant();
    await start(t, 'hello');
    const [row] = await claim(t);
    assert.equal((await worker(row!))?.status, 'succeeded');
    assert.equal(await cancel(db(), row!.id), null);
    assert.deepEqual(await state(row!.id), { status: 'succeeded', errorCode: null, terminal: [{ type: 'execution.succeeded', seq: row!.eventSeq }], usage: 1, assistant: 1, active: null });
  });

  it('at once: one of them wins, and only its writes are there', async () => {
    for (let i = 0; i < 5; i++) {
      const t = await tenant();
      await start(t, 'hello');
      const [row] = await claim(t);
      const [c, w] = await Promise.all([cancel(db(), row!.id), worker(row!)]);
      assert.equal([c, w].filter(Boolean).length, 1, 'exactly one writer changed the row');
      const s = await state(row!.id);
      assert.equal(s.status, c ? 'cancelled' : 'succeeded');
      assert.equal(s.terminal.length, 1);
      assert.equal(s.terminal[0]!.type, `execution.${s.status}`);
      assert.deepEqual([s.usage, s.assistant, s.active], [1, c ? 0 : 1, null]);
    }
  });
});

describe('a worker declared lost', () => {
  it('is failed worker_lost once the clock passes its heartbeat by LOST_AFTER, and its late writes are refused', async () => {
    const t = await tenant();
    await start(t, 'hello');
    const [row] = await claim(t);
    const [{ now }] = (await queryRows<{ now: number }>(db(), sql`select (extract(epoch from now()) * 1000)::float8 as now`)) as [{ now: number }];
    const clock = fixedClock(now + LOST_AFTER_MS - 1_000);
    assert.deepEqual(await failLostExecutions(db(), clock), [], 'not yet lost');
    clock.advance(1_000 + 1_000);
    assert.deepEqual(await failLostExecutions(db(), clock), [row!.id]);
    const s = await state(row!.id);
    assert.deepEqual([s.status, s.errorCode, s.terminal.length, s.usage, s.active], ['failed', 'worker_lost', 1, 1, null]);
    // The worker, still alive after all, finds nothing of its own.
    assert.equal(await appendEvents(db(), row!.id, row!.attempt, [{ seq: row!.eventSeq - 9_999, ...recordedEvent('text.delta', { step: 0, delta: 'late' }) }], row!.eventSeq), false);
    assert.equal(await worker(row!), null);
    assert.deepEqual([...(await heartbeat(db(), [{ id: row!.id, attempt: row!.attempt }]))], []);
    assert.deepEqual(await failLostExecutions(db(), clock), [], 'lost once');
  });
});

describe('two finishers of one attempt', () => {
  it('the worker’s end, its timeout and the sweeper at once: one row change, one terminal event, one usage record', async () => {
    for (let i = 0; i < 5; i++) {
      const t = await tenant();
      await start(t, 'hello');
      const [row] = await claim(t);
      const [{ now }] = (await queryRows<{ now: number }>(db(), sql`select (extract(epoch from now()) * 1000)::float8 as now`)) as [{ now: number }];
      const results = await Promise.all([worker(row!), worker(row!, 'failed'), failLostExecutions(db(), fixedClock(now + LOST_AFTER_MS + 1_000)).then((lost) => (lost.includes(row!.id) ? lost : null))]);
      assert.equal(results.filter(Boolean).length, 1, 'one finisher changed the row');
      const s = await state(row!.id);
      assert.equal(s.terminal.length, 1);
      assert.equal(s.terminal[0]!.type, `execution.${s.status}`);
      assert.deepEqual([s.usage, s.active], [1, null]);
    }
  });
});

describe('a hand-on and a cancel', () => {
  // H runs in a conversation; T1 and T2 wait their turns behind it.
  async function line() {
    const t = await tenant();
    const h = await start(t, 'head');
    const [running] = await claim(t);
    const t1 = await start(t, 'turn 1', h.conversationId);
    const t2 = await start(t, 'turn 2', h.conversationId);
    assert.deepEqual([t1.waitingTurn !== null, t2.waitingTurn !== null], [true, true]);
    return { t, h: running!, t1, t2, conversationId: h.conversationId };
  }
  const userMessages = (conversationId: string) =>
    queryRows<{ execution_id: string; n: number }>(db(), sql`select execution_id, count(*)::int as n from messages where conversation_id = ${conversationId} and role = 'user' group by execution_id`);
  const waiting = async (id: string) => (await queryRows<{ w: number | null; status: string }>(db(), sql`select waiting_turn as w, status from executions where id = ${id}`))[0]!;

  for (const order of ['cancel T1, then H ends', 'H ends, then cancel T1', 'at once'] as const) {
    it(`${order}: T2 takes the conversation, nobody else; each user message once`, async () => {
      const { h, t1, t2, conversationId } = await line();
      if (order === 'cancel T1, then H ends') {
        assert.ok(await cancel(db(), t1.id));
        assert.ok(await worker(h));
      } else if (order === 'H ends, then cancel T1') {
        assert.ok(await worker(h));
        assert.equal((await state(t1.id)).active, t1.id, 'T1 took the conversation when H ended');
        assert.ok(await cancel(db(), t1.id));
      } else {
        const [c, w] = await Promise.all([cancel(db(), t1.id), worker(h)]);
        assert.ok(c && w);
      }
      assert.equal((await state(t1.id)).status, 'cancelled');
      assert.deepEqual(await waiting(t2.id), { w: null, status: 'queued' }, 'T2 is out of the line, queued to run');
      assert.equal((await state(t2.id)).active, t2.id);
      const messages = await userMessages(conversationId);
      assert.ok(messages.every((m) => m.n === 1), JSON.stringify(messages));
      assert.ok(messages.some((m) => m.execution_id === t2.id));
    });
  }
});

describe('the end of a run on the embedded database', () => {
  /** The statements PGlite bound (protocol Bind messages) while `fn` ran. */
  async function bound(fn: () => Promise<unknown>): Promise<number> {
    const pglite = database.pglite as unknown as { execProtocolStream: (m: Uint8Array, o?: unknown) => Promise<unknown> };
    const original = pglite.execProtocolStream;
    let binds = 0;
    pglite.execProtocolStream = (m, o) => {
      if (m[0] === 0x42) binds++;
      return original.call(pglite, m, o);
    };
    try {
      await fn();
    } finally {
      pglite.execProtocolStream = original;
    }
    return binds;
  }

  it('sends the hand-on of its conversation only when a turn waits there (the end statement says)', { skip: DB_KIND === 'pglite' ? false : 'PGlite only' }, async () => {
    const t = await tenant();
    await start(t, 'alone');
    const [alone] = await claim(t);
    // The update, then the end's statement: no third statement for an empty line.
    assert.equal(await bound(() => worker(alone!)), 2);
    const h = await start(t, 'head');
    const [head] = await claim(t);
    const turn = await start(t, 'next', h.conversationId);
    assert.equal(await bound(() => worker(head!)), 3, 'the update, the end, and the hand-on');
    assert.equal((await state(turn.id)).active, turn.id, 'the waiting turn took the conversation');
  });
});

describe('the usage record', () => {
  it('is written by finish itself (migration 0015 dropped 0007’s trigger): status, model, tokens, tool calls, duration', async () => {
    const t = await tenant();
    const steps = [
      { index: 0, text: '', toolCalls: [{ id: 'c1', name: 'a', arguments: {} }, { id: 'c2', name: 'b', arguments: {} }], toolResults: [], finishReason: 'tool-calls', usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 }, startedAt: '', completedAt: '' },
      { index: 1, text: 'answer', toolCalls: [{ id: 'c3', name: 'a', arguments: {} }], toolResults: [], finishReason: 'stop', usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 }, startedAt: '', completedAt: '' },
    ];
    const end = (row: ExecutionRow) =>
      finish(db(), row.id, { status: 'succeeded', output: 'answer', steps, usage: { inputTokens: 12, outputTokens: 5 } }, { from: ['running'], attempt: row.attempt }, undefined, { pending: [], terminalSeq: row.eventSeq });
    const record = async (id: string) =>
      (
        await queryRows<Record<string, unknown>>(
          db(),
          sql`select status, model, agent_id, input_tokens, output_tokens, tool_calls, duration_ms, completed_at = (select completed_at from executions where id = ${id}) as at_completion
              from usage_execution_records where execution_id = ${id}`,
        )
      )[0];
    const triggers = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from pg_trigger where tgname like 'executions_usage_on_%'`);
    assert.equal(triggers[0]!.n, 0, 'no usage trigger is left');
    await start(t, 'one');
    const [first] = await claim(t);
    await end(first!);
    const byFinish = await record(first!.id);
    assert.ok(byFinish, 'finish wrote the record');
    assert.deepEqual(
      { ...byFinish, duration_ms: null, agent_id: null },
      { status: 'succeeded', model: first!.model, agent_id: null, input_tokens: 12, output_tokens: 5, tool_calls: 3, duration_ms: null, at_completion: true },
    );
    assert.ok(Number(byFinish.duration_ms) >= 0);
    assert.equal(byFinish.agent_id, first!.agentId);
    assert.equal((await state(first!.id)).usage, 1);
  });
});
