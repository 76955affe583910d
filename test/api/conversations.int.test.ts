// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { dashboardCall, testSessions } from '../dashboard';
import { expectError, expectStatus, ISO_MS } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, waitFor, type Conversation } from '../executions/helpers';

// GET /v1/conversations: the conversations of the key's workspace and environment,
// newest first, keyset-paginated like every list, filtered by agent, without their messages
// but with how many there are and when the last was written. Security (keys, scopes, other
// workspaces and environments): test/executions/security.int.test.ts.

interface Summary {
  id: string;
  agentId: string;
  messageCount: number;
  lastMessageAt: string;
  createdAt: string;
  updatedAt: string;
}
interface SummaryList {
  data: Summary[];
  hasMore: boolean;
  nextCursor?: string;
  prevCursor?: string;
}

let api: TestServer;
let admin: SeededKey;
let agentA: string;
let agentB: string;

before(async () => {
  api = await startServer({ dashboardSession: testSessions() });
  admin = await api.seed.key({ name: 'admin', ...UNLIMITED });
  agentA = await createAgent(api, admin.key, { name: 'A' });
  agentB = await createAgent(api, admin.key, { name: 'B' });
});
after(() => api?.close());

async function list(query = '', key = admin.key): Promise<SummaryList> {
  const res = await api.request<SummaryList>('GET', `/v1/conversations${query}`, { key });
  expectStatus(res, 200);
  return res.body;
}
const ids = (p: SummaryList) => p.data.map((c) => c.id);

/** A finished run on `agentId` (a new conversation, or the given one); resolves with its conversation id. */
async function converse(agentId: string, input: string, conversationId?: string): Promise<string> {
  const res = await execute(api, admin.key, agentId, { input, wait: true, ...(conversationId ? { conversationId } : {}) });
  expectStatus(res, 200);
  assert.equal(res.body.status, 'succeeded');
  return res.body.conversationId;
}

async function conversation(id: string): Promise<Conversation> {
  const res = await api.request<Conversation>('GET', `/v1/conversations/${id}`, { key: admin.key });
  expectStatus(res, 200);
  return res.body;
}

describe('GET /v1/conversations', () => {
  let first: string;
  let second: string;
  let third: string;

  before(async () => {
    first = await converse(agentA, 'hello');
    await converse(agentA, 'hello again', first);
    second = await converse(agentB, 'hi');
    third = await converse(agentA, 'one more');
  });

  it('lists them newest first, without messages, with messageCount and lastMessageAt as their messages show', async () => {
    const page = await list();
    assert.deepEqual(ids(page), [third, second, first]);
    assert.equal(page.hasMore, false);
    for (const item of page.data) {
      assert.deepEqual(Object.keys(item).sort(), ['agentId', 'createdAt', 'id', 'lastMessageAt', 'messageCount', 'updatedAt']);
      for (const t of [item.createdAt, item.updatedAt, item.lastMessageAt]) assert.match(t, ISO_MS);
      const full = await conversation(item.id);
      assert.equal(item.agentId, full.agentId);
      assert.equal(item.messageCount, full.messages.length, item.id);
      assert.equal(item.lastMessageAt, full.messages.at(-1)!.createdAt, item.id);
      assert.equal(item.createdAt, full.createdAt);
    }
    const byId = Object.fromEntries(page.data.map((c) => [c.id, c]));
    assert.equal(byId[first]!.messageCount, 4, 'two turns: two user and two assistant messages');
    assert.equal(byId[second]!.messageCount, 2);
  });

  it('counts the user message of a queued run at once, and what its run adds', async () => {
    const slow = await createAgent(api, admin.key, { name: 'slow', model: 'sandbox/slow' });
    const queued = await execute(api, admin.key, slow, { input: 'take your time' });
    expectStatus(queued, 202);
    const [item] = (await list(`?agentId=${slow}`)).data;
    assert.equal(item?.id, queued.body.conversationId);
    assert.equal(item.messageCount, 1);
    assert.equal(item.lastMessageAt, (await conversation(item.id)).messages[0]!.createdAt);
    const done = await waitFor(api, admin.key, queued.body.id);
    assert.equal(done.status, 'succeeded');
    const [after] = (await list(`?agentId=${slow}`)).data;
    assert.equal(after?.messageCount, 2);
    assert.ok(after.lastMessageAt > item.lastMessageAt);
  });

  it('filters by agentId (another workspace’s or an unknown agent: none)', async () => {
    assert.deepEqual(ids(await list(`?agentId=${agentA}`)), [third, first]);
    assert.deepEqual(ids(await list(`?agentId=${agentB}`)), [second]);
    assert.deepEqual(await list('?agentId=agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK'), { data: [], hasMore: false });
    assert.deepEqual(await list('?agentId=nonsense'), { data: [], hasMore: false });
  });

  it('refuses bad list parameters like every list', async () => {
    const get = (q: string) => api.request('GET', `/v1/conversations${q}`, { key: admin.key });
    expectError(await get('?after=exe_01JD8X3ZQ2N6W5V4T3S2R1P0MK'), 400, 'invalid_cursor', 'after');
    expectError(await get(`?after=${first}&before=${third}`), 400, 'parameter_conflict');
    expectError(await get('?limit=0'), 400, 'invalid_parameter', 'limit');
    expectError(await get('?limit=101'), 400, 'invalid_parameter', 'limit');
    expectError(await get('?status=queued'), 400, 'unknown_parameter', 'status');
  });

  it('is the same list on the dashboard face', async () => {
    const rest = await list('?limit=2');
    const dash = await dashboardCall<SummaryList>(api, admin.workspace, 'query', 'conversations.list', { limit: 2 });
    assert.equal(dash.status, 200, JSON.stringify(dash.error));
    assert.deepEqual(dash.result, rest);
  });
});

describe('GET /v1/conversations pagination', () => {
  let key: SeededKey;
  let agent: string;
  let all: string[]; // newest first

  before(async () => {
    key = await api.seed.key({ name: 'pages', ...UNLIMITED });
    agent = await createAgent(api, key.key);
    const made: string[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await execute(api, key.key, agent, { input: `c${i}`, wait: true });
      expectStatus(res, 200);
      made.push(res.body.conversationId);
    }
    all = made.reverse();
  });

  const page = (q: string) => list(q, key.key);

  it('walks forwards with after, then back with before, never repeating or skipping', async () => {
    const forward: SummaryList[] = [];
    for (let cursor = ''; ; ) {
      const p = await page(`?limit=4${cursor}`);
      forward.push(p);
      if (!p.hasMore) break;
      cursor = `&after=${p.nextCursor}`;
    }
    assert.deepEqual(forward.flatMap(ids), all);
    assert.equal(forward.length, 3);
    assert.equal('prevCursor' in forward[0]!, false);
    let p = forward.at(-1)!;
    const backward = [p];
    while (p.prevCursor) {
      p = await page(`?limit=4&before=${p.prevCursor}`);
      backward.unshift(p);
    }
    assert.deepEqual(backward.flatMap(ids), all);
  });

  it('never repeats or skips while conversations are being added, and takes a deleted one as a cursor', async () => {
    const seen: string[] = [];
    for (let cursor = ''; ; ) {
      const p = await page(`?limit=3${cursor}`);
      seen.push(...ids(p));
      expectStatus(await execute(api, key.key, agent, { input: 'added meanwhile', wait: true }), 200);
      if (!p.hasMore) break;
      cursor = `&after=${p.nextCursor}`;
    }
    assert.deepEqual(seen, all);

    const gone = all[4]!;
    expectStatus(await api.request('DELETE', `/v1/conversations/${gone}`, { key: key.key }), 200);
    assert.ok(!ids(await page('?limit=100')).includes(gone), 'a deleted conversation is not listed');
    assert.deepEqual(ids(await page(`?limit=2&after=${gone}`)), all.slice(5, 7));
    assert.deepEqual(ids(await page(`?limit=2&before=${gone}`)), all.slice(2, 4));
  });
});

describe('GET /v1/conversations at depth', () => {
  interface PlanNode {
    'Node Type': string;
    'Index Name'?: string;
    'Actual Rows'?: number;
    'Rows Removed by Filter'?: number;
    Plans?: PlanNode[];
  }
  const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

  /** The plan of `query` as run, and how many rows its scans touched (returned or filtered out). */
  async function run(query: ReturnType<typeof sql>): Promise<{ indexes: (string | undefined)[]; touched: number; shape: string }> {
    const [row] = await api.query<Record<string, unknown>>(sql`explain (analyze, format json) ${query}`);
    const raw = Object.values(row!)[0];
    const all = nodes(((typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[])[0]!.Plan);
    const scans = all.filter((n) => n['Node Type'].includes('Scan'));
    return {
      indexes: scans.map((n) => n['Index Name']),
      touched: scans.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0), 0),
      shape: JSON.stringify(all.map((n) => [n['Node Type'], n['Index Name']])),
    };
  }

  it('reads a page of one workspace among 200 from its index, touching as few rows deep in the list as at its top', async () => {
    // 20,000 conversations of 200 workspaces, interleaved in time as in a shared database; the
    // one listed (ws_depth_0) has 100: 90 in test, half of them with agent A.
    await api.query(sql`insert into workspaces (id, name) select 'ws_depth_' || n, 'depth' from generate_series(0, 199) as n`);
    await api.query(sql`
      insert into conversations (id, workspace_id, environment, agent_id, message_count)
      select 'conv_' || lpad(i::text, 26, '0'), 'ws_depth_' || (i % 200),
             case when (i / 200) % 10 = 0 then 'live' else 'test' end, case when (i / 200) % 2 = 0 then 'agt_depth_a' else 'agt_depth_b' end, 2
      from generate_series(1, 20000) as i`);
    await api.query(sql`analyze conversations`);
    const columns = sql`id, agent_id, message_count, last_message_at, created_at, updated_at`;
    const deep = `conv_${'12000'.padStart(26, '0')}`; // 36 of its test conversations (18 of agent A's) are newer

    for (const [filter, index] of [
      [sql``, 'conversations_list_idx'],
      [sql`and agent_id = 'agt_depth_a'`, 'conversations_agent_idx'],
    ] as const) {
      const top = await run(sql`select ${columns} from conversations
        where workspace_id = 'ws_depth_0' and environment = 'test' ${filter} order by id desc limit 21`);
      const atDepth = await run(sql`select ${columns} from conversations
        where workspace_id = 'ws_depth_0' and environment = 'test' ${filter} and id < ${deep} order by id desc limit 21`);
      for (const plan of [top, atDepth]) {
        assert.deepEqual(plan.indexes, [index], plan.shape);
        assert.doesNotMatch(plan.shape, /Sort|Seq Scan/);
        assert.equal(plan.touched, 21, `${plan.shape}: the scan reads the page (limit + 1) and nothing else`);
      }
    }
  });
});
