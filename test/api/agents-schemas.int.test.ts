// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { heavySchema } from '../fakes/schemas';
import { startServer, UNLIMITED, type ApiResponse, type SeededKey, type TestServer } from '../harness';
import { setSchemaBudgetForTests } from '../../server/modules/tools/schema-pool';

// Tool parameter schemas are compiled off the event loop (docs/security.md, "Schemas are
// compiled off the event loop"). The attack: a 15 KB schema using $dynamicRef and
// unevaluatedProperties costs ajv ~50–170 ms to compile, so an agent with 20 of them froze the
// whole process (every tenant's requests, streams and runs) for 1.3–3.2 s per create. Now the
// compiles run in worker threads, each under a hard budget, one workspace's backlog in a line
// of its own; a refused schema is a 400 on `tools.N.parameters` with nothing written.

let api: TestServer;
let owner: SeededKey;
before(async () => {
  api = await startServer();
  owner = await api.seed.key({ ...UNLIMITED });
});
after(async () => {
  setSchemaBudgetForTests(null);
  await api?.close();
});

let unique = 0;
const heavyTools = (n = 20) =>
  Array.from({ length: n }, (_, i) => ({
    type: 'http',
    name: `t${i}`,
    description: 'A tool with a costly schema',
    url: 'https://93.184.215.14/tool',
    method: 'POST',
    parameters: heavySchema(`s${process.pid}-${++unique}`),
  }));
const create = (body: Record<string, unknown>, key = owner.key) => api.request<{ id: string }>('POST', '/v1/agents', { key, body: { name: 'Heavy', ...body } });
const agents = async () => (await api.query<{ n: number }>(sql`select count(*)::int as n from agents`))[0]!.n;

/**
 * Other processes may take the cores for a while (the suite runs two files at once on two), so
 * wall time gets slack; the CPU-time bound on the longest block is the strict one.
 */
const WALL_SLACK_MS = 400;

/**
 * The longest block allowed. On PGlite the database runs on the main thread too: the agent's
 * writes (20 schemas of JSON, twice) and whatever its background loops query count as blocks
 * there, and their CPU time varies with the other core's load (72 ms in one run, 142 ms in a CI
 * run of the same commit, where PostgreSQL's pass saw 23–70 ms, and 117 ms once with four files at
 * once on the 2 cores: a garbage collection counts too). A compile on the loop held it for
 * 0.3–3.2 s, so 200 ms still tells the two apart, on either database.
 */
const MAX_BLOCK_MS = 200;

/**
 * Watches the event loop until stopped: the slowest /healthz answer (asked every 10 ms), and the
 * longest the main thread ran without letting a 5 ms timer fire, in CPU time of that thread
 * (process.threadCpuUsage): unlike wall time, that is not stretched by other processes taking
 * the cores (the suite runs two files at once on two cores).
 */
function watchLoop(): { stop(): Promise<{ healthz: number; block: number }> } {
  let running = true;
  let healthz = 0;
  let block = 0;
  const probe = (async () => {
    while (running) {
      // Counted from when the question was due, so a block during the pause counts too.
      const due = performance.now();
      await (await fetch(`${api.url}/healthz`)).text();
      healthz = Math.max(healthz, performance.now() - due);
      const pause = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 10));
      healthz = Math.max(healthz, performance.now() - pause - 10);
    }
  })();
  let last = process.threadCpuUsage();
  let timer: NodeJS.Timeout;
  const tick = () => {
    const spent = process.threadCpuUsage(last);
    last = process.threadCpuUsage();
    block = Math.max(block, (spent.user + spent.system) / 1000);
    timer = setTimeout(tick, 5);
  };
  timer = setTimeout(tick, 5);
  return {
    async stop() {
      running = false;
      clearTimeout(timer);
      await probe;
      return { healthz, block };
    },
  };
}

describe('JSON Schemas of tools are compiled off the event loop', () => {
  it('an agent created and updated with 20 costly schemas each, while the event loop stays free (no block of 200 ms; /healthz answers within 100 ms)', async (t) => {
    expectStatus(await create({ tools: heavyTools() }), 201); // the pool's thread starts, and the code paths warm up, outside the measurement
    // Serialized beforehand: the client shares the event loop with the server in this process.
    const [first, second] = [0, 1].map(() => JSON.stringify({ name: 'Heavy', tools: heavyTools() }));
    const headers = { 'content-type': 'application/json' };
    const loop = watchLoop();
    const started = performance.now();
    const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: owner.key, rawBody: first, headers });
    expectStatus(created, 201);
    expectStatus(await api.request('PATCH', `/v1/agents/${created.body.id}`, { key: owner.key, rawBody: second, headers }), 200);
    const took = performance.now() - started;
    const { healthz, block } = await loop.stop();
    t.diagnostic(`2 × 20 schemas compiled in ${took.toFixed(0)} ms; longest event-loop block ${block.toFixed(1)} ms of CPU; slowest /healthz ${healthz.toFixed(1)} ms`);
    // On the event loop, one such create held it for 0.3–3.2 s (each schema 15–170 ms, by machine).
    assert.ok(block < MAX_BLOCK_MS, `the event loop ran ${block.toFixed(0)} ms without a break (at most ${MAX_BLOCK_MS})`);
    assert.ok(healthz < 100 + WALL_SLACK_MS, `/healthz took ${healthz.toFixed(0)} ms`);
  });

  it('a schema past the compile budget is refused (400, tools.N.parameters) and nothing is written; the next compile runs', async () => {
    const n = await agents();
    setSchemaBudgetForTests(0); // every task is past it, however fast the machine compiles
    let res: ApiResponse<unknown>;
    try {
      res = await create({ tools: [...heavyTools(1), ...heavyTools(1).map((t) => ({ ...t, name: 'second' }))] });
    } finally {
      setSchemaBudgetForTests(null);
    }
    const error = expectError(res, 400, 'invalid_parameter', 'tools.0.parameters');
    assert.match(error.message, /^'tools\.0\.parameters' took longer than 1 s to compile; make the schema simpler$/);
    assert.equal(await agents(), n, 'nothing written');
    expectStatus(await create({ tools: heavyTools(2) }), 201);
  });

  it('a pattern RE2 cannot run (lookahead) is refused at create with the reason', async () => {
    const parameters = { type: 'object', properties: { id: { type: 'string', pattern: '^(?=x)x' } } };
    const res = await create({ tools: [{ ...heavyTools(1)[0], parameters }] });
    assert.match(expectError(res, 400, 'invalid_parameter', 'tools.0.parameters').message, /not supported .*RE2/);
  });

  it('a workspace flooding the pool gets 429 past its line; another workspace is served meanwhile', async (t) => {
    const flooder = await api.seed.key({ ...UNLIMITED });
    const other = await api.seed.key({ ...UNLIMITED });
    const n = await agents();
    const flood = Array.from({ length: 5 }, () => create({ tools: heavyTools() }, flooder.key));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the flood is queued
    const started = performance.now();
    expectStatus(await create({ tools: heavyTools(1) }, other.key), 201);
    const waited = performance.now() - started;
    const answers = await Promise.all(flood);
    const refused = answers.filter((r) => r.status === 429);
    assert.ok(refused.length >= 1, `statuses ${answers.map((r) => r.status).join(',')}`);
    for (const r of refused) {
      expectError(r, 429, 'rate_limit_exceeded');
      assert.equal(r.headers.get('retry-after'), '1');
    }
    assert.ok(answers.every((r) => r.status === 201 || r.status === 429));
    assert.equal(await agents(), n + 1 + answers.filter((r) => r.status === 201).length, 'nothing written for a refused create');
    t.diagnostic(`another workspace's create waited ${waited.toFixed(0)} ms behind a flood of ${answers.length * 20} compiles`);
    // Behind the flood it would wait the whole flood (100 compiles: ~10 s); served in turn, a
    // compile or two (under 1.5 s on an idle machine, 1.65 s seen with the suite's 2 cores full).
    assert.ok(waited < 3_000, `the other workspace waited ${waited.toFixed(0)} ms`);
  });
});
