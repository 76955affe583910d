import assert from 'node:assert/strict';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { Agent, request } from 'undici';
import { expectError, expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { createAgent, execute, parseSse, readStream, waitFor } from './helpers';
import { USER_HEADER, testSessions } from '../dashboard';

// What one tenant's streams may hold (docs/concurrency.md): at most 100 open event streams per
// API key and per dashboard session (429 beyond), ended within seconds when the key is revoked
// or the session ends; a client that stops reading is dropped without the server buffering the
// execution for it; and streams of one process share one read of each event.

let api: TestServer;
let fake: FakeOpenAI;
const LONG = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
/** Enough sockets for the tests' many open streams. */
const dispatcher = new Agent({ connections: 400, keepAliveTimeout: 1_000 });

before(async () => {
  fake = await startFakeOpenAI();
  api = await startServer({ env: { STREAM_STALL_SECONDS: '1', OPENAI_COMPATIBLE_BASE_URL: fake.url, TEST_MODE_REAL_MODELS: 'true' }, dashboardSession: testSessions() });
});
after(async () => {
  await dispatcher.close();
  await api?.close();
  await fake?.close();
});

/**
 * The event streams the server holds open for a key: its lease rows on PostgreSQL (counted over
 * every process), its process's own count on the embedded database (the one process: no rows).
 */
async function leasesOf(keyId: string): Promise<number> {
  if (api.runtime.database.kind === 'pglite') return api.runtime.streams.openOf(`key:${keyId}`);
  return (await api.query<{ n: number }>(sql`select count(*)::int as n from stream_leases where holder = ${`key:${keyId}`}`))[0]!.n;
}

/** Opens a stream; the body is read (and dropped) in the background until `close()`. */
async function open(key: string | Record<string, string>, path: string) {
  const controller = new AbortController();
  const headers = typeof key === 'string' ? { authorization: `Bearer ${key}` } : key;
  const res = await request(`${api.url}${path}`, { dispatcher, headers, signal: controller.signal });
  let ended = false;
  let text = '';
  const done = (async () => {
    try {
      for await (const chunk of res.body) text += (chunk as Buffer).toString();
    } catch {
      // aborted by us, or dropped by the server
    }
    ended = true;
  })();
  return {
    status: res.statusCode,
    headers: res.headers,
    get ended() {
      return ended;
    },
    get text() {
      return text;
    },
    done,
    close: () => controller.abort(),
  };
}
type Open = Awaited<ReturnType<typeof open>>;

async function longRun(k: SeededKey): Promise<string> {
  const agentId = await createAgent(api, k.key, { model: 'sandbox/slow' });
  const res = await execute(api, k.key, agentId, { input: LONG });
  expectStatus(res, 202);
  return res.body.id;
}
const cancel = (k: SeededKey, id: string) => api.request('POST', `/v1/executions/${id}/cancel`, { key: k.key });

describe('open streams per key', () => {
  it('at most 100 per key: the 101st is 429 with Retry-After, execute with stream too; another key still streams; closing one frees a place', async () => {
    const k = await api.seed.key({ ...UNLIMITED });
    const id = await longRun(k);
    const streams: Open[] = [];
    for (let i = 0; i < 100; i++) {
      const s = await open(k.key, `/v1/executions/${id}/stream`);
      assert.equal(s.status, 200, `stream ${i + 1}`);
      streams.push(s);
    }
    const refused = await api.request('GET', `/v1/executions/${id}/stream`, { key: k.key });
    const err = expectError(refused, 429, 'rate_limit_exceeded');
    assert.match(err.message, /100/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const agentId = await createAgent(api, k.key);
    const before = (await api.query<{ n: number }>(sql`select count(*)::int as n from executions where agent_id = ${agentId}`))[0]!.n;
    expectError(await execute(api, k.key, agentId, { input: 'one more', stream: true }), 429, 'rate_limit_exceeded');
    assert.equal((await api.query<{ n: number }>(sql`select count(*)::int as n from executions where agent_id = ${agentId}`))[0]!.n, before, 'nothing was created');

    const peer = await api.seed.key({ workspace: k.workspace, environment: k.environment });
    const theirs = await open(peer.key, `/v1/executions/${id}/stream`);
    assert.equal(theirs.status, 200, 'the limit is per key');
    theirs.close();

    streams.pop()!.close();
    let again: Open | undefined;
    for (let i = 0; i < 100 && again?.status !== 200; i++) {
      again?.close();
      again = await open(k.key, `/v1/executions/${id}/stream`);
      if (again.status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(again!.status, 200, 'a closed stream gives its place back');
    again!.close();
    for (const s of streams) s.close();
    await cancel(k, id);
  });

  it('exactly 100 of 130 concurrent opens with one key get a stream, the rest 429 (docs/security.md)', async () => {
    // The count used to go out before the workspace's lock: 107–109 of 130 opened on PostgreSQL.
    const k = await api.seed.key({ ...UNLIMITED });
    const id = await longRun(k);
    const streams = await Promise.all(Array.from({ length: 130 }, () => open(k.key, `/v1/executions/${id}/stream`)));
    const statuses = streams.map((s) => s.status);
    assert.equal(statuses.filter((s) => s === 200).length, 100, `opened: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 429).length, 30);
    assert.equal(await leasesOf(k.id), 100);
    for (const s of streams) s.close();
    await cancel(k, id);
  });
});

describe('revocation', () => {
  it("a key's open streams end within 5 s of its revocation", async () => {
    const admin = await api.seed.key({ ...UNLIMITED });
    const k = await api.seed.key({ workspace: admin.workspace, environment: admin.environment });
    const id = await longRun(admin);
    const streams = await Promise.all([0, 1, 2].map(() => open(k.key, `/v1/executions/${id}/stream`)));
    assert.ok(streams.every((s) => s.status === 200));
    // Streams that must stay open: no event marks it, so they are given 300 ms to (wrongly) end.
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(streams.every((s) => !s.ended), 'open while the key is valid');
    const t0 = Date.now();
    expectStatus(await api.request('DELETE', `/v1/keys/${k.id}`, { key: admin.key }), 200);
    await Promise.all(streams.map((s) => s.done));
    const took = Date.now() - t0;
    assert.ok(took < 5_000, `ended ${took} ms after the revocation`);
    // The run itself goes on: revoking a key is not cancelling its work.
    assert.equal((await api.request<{ status: string }>('GET', `/v1/executions/${id}`, { key: admin.key })).body.status, 'running');
    await cancel(admin, id);
  });
});

describe('dashboard sessions', () => {
  it('at most 100 open streams per session; they end within 5 s when the session ends', async () => {
    const { startSession, endSession } = await import('../../server/modules/auth/sessions');
    const k = await api.seed.key({ ...UNLIMITED });
    const id = await longRun(k);
    const sessionId = await startSession(api.db, k.workspace.userId);
    // The dashboard's own path, served by the node edge; the session stood in for by the test header.
    const path = `/api/dashboard/executions/${id}/stream?environment=${k.environment}`;
    const as = { [USER_HEADER]: `${k.workspace.userId} ${k.workspace.id} ${sessionId}` };
    const streams: Open[] = [];
    for (let i = 0; i < 100; i++) {
      const s = await open(as, path);
      assert.equal(s.status, 200, `stream ${i + 1}`);
      streams.push(s);
    }
    const refused = await open(as, path);
    await refused.done;
    assert.equal(refused.status, 429);
    assert.equal((JSON.parse(refused.text) as { error: { code: string } }).error.code, 'rate_limit_exceeded');
    const other = await open({ [USER_HEADER]: `${k.workspace.userId} ${k.workspace.id}` }, `/api/dashboard/executions/exe_unknown/stream`);
    await other.done;
    assert.equal(other.status, 404, 'an unknown execution');
    const t0 = Date.now();
    await endSession(api.db, sessionId);
    await Promise.all(streams.map((s) => s.done));
    assert.ok(Date.now() - t0 < 5_000, `ended ${Date.now() - t0} ms after sign-out`);
    await cancel(k, id);
  });
});

describe('a client that stops reading', () => {
  it('is dropped after STREAM_STALL_SECONDS, and the server does not buffer the execution for it', async () => {
    // A live execution of about 6 MB of events (a 2 MB answer, twice more in the terminal event).
    const k = await api.seed.key({ ...UNLIMITED, environment: 'live' });
    const big = 'x'.repeat(2 * 1024 * 1024);
    fake.set({ reply: () => big });
    const agentId = await createAgent(api, k.key, { model: 'openai-compatible/big' });
    const res = await execute(api, k.key, agentId, { input: 'a big answer please', wait: true });
    fake.reset();
    expectStatus(res, 200);
    assert.equal(res.body.output?.length, big.length);

    const port = Number(new URL(api.url).port);
    // What the process holds on to (after a collection), not garbage waiting for one.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    gc();
    const base = used();
    // Buffering the stream for every client would hold 16 × 6 MB = 96 MB; a stalled stream holds
    // at most the piece of an event it was writing (up to its 2 MB delta, in the socket's queue:
    // the growth is mostly arrayBuffers), so 16 hold ~40 MB. The bound was half of buffering,
    // 48 MB: measured 37–41 MB from a settled heap on 2026-11-29 (before, the run still held
    // ~12 MB when `base` was taken and let it go during the streams, which hid ~12 MB of the
    // growth under the old 40 MB bound). Measured again on 2026-11-30: 30–35 MB on an idle machine,
    // 48 MB once in a fresh-clone CI run under load (four test files beside it), which failed the
    // 48 MB bound; the bound is now two thirds of buffering, 64 MB, still a third under what
    // buffering would hold. A collection only when the heap looks grown past it (a
    // sample under it cannot fail the test, and one over it is measured after a collection):
    // one every 200 ms cost this file ~10 s of CPU on PGlite.
    const BOUND = 64 * 1024 * 1024;
    const heap = () => {
      if (used() - base < BOUND) return used();
      gc();
      return used();
    };
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, heap())), 200);
    // 16 clients ask for the stream and never read a byte of it.
    const sockets = await Promise.all(
      Array.from({ length: 16 }, () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(port, '127.0.0.1', () => {
            s.write(`GET /v1/executions/${res.body.id}/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${k.key}\r\n\r\n`);
            s.pause();
            resolve(s);
          });
          s.on('error', () => {});
        }),
      ),
    );
    const t0 = Date.now();
    // The server's side: its open streams of this key (a paused client does not see the drop).
    const open = () => leasesOf(k.id);
    let seen = 0;
    // Dropped within a few seconds (STREAM_STALL_SECONDS=1 here); the bound is generous for a machine under load.
    while (Date.now() - t0 < 60_000) {
      const n = await open();
      seen = Math.max(seen, n);
      if (seen > 0 && n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    clearInterval(sampler);
    const took = Date.now() - t0;
    assert.equal(await open(), 0, `all dropped (after ${took} ms)`);
    // Each client was answered (what it never read is still in its socket): a stream, then dropped.
    const received = await Promise.all(
      sockets.map(
        (s) =>
          new Promise<string>((resolve) => {
            let head = '';
            s.on('data', (d: Buffer) => void (head.length < 100 && (head += d.toString('latin1'))));
            s.once('close', () => resolve(head));
            s.resume();
          }),
      ),
    );
    for (const head of received) assert.match(head, /^HTTP\/1\.1 200/);
    assert.ok(peak - base < BOUND, `memory held grew by ${((peak - base) / 1024 / 1024).toFixed(0)} MB`);

    // A client that reads gets every event whole: the large ones are read and sent piece by piece.
    const whole = await readStream(`${api.url}/v1/executions/${res.body.id}/stream`, { key: k.key });
    const last = whole.events.at(-1)!;
    assert.equal(last.event, 'execution.succeeded');
    assert.equal((last.data as unknown as { execution: { output: string } }).execution.output, big);
    assert.deepEqual(whole.events.map((e) => e.id), whole.events.map((_, i) => whole.events[0]!.id + i), 'every event, in order');
  });
});

describe('one read per process', () => {
  it('30 streams of one run cost no database read per stream per event', async () => {
    const k = await api.seed.key({ ...UNLIMITED });
    const agentId = await createAgent(api, k.key, { model: 'sandbox/slow' });
    const started = await execute(api, k.key, agentId, { input: 'a b c d e f g h' });
    expectStatus(started, 202);
    const reads = async () =>
      (await api.query<{ n: number }>(sql`select (coalesce(idx_scan, 0) + coalesce(seq_scan, 0))::int as n from pg_stat_user_tables where relname = 'execution_events'`))[0]?.n ?? 0;
    const before = await reads();
    const streams = await Promise.all(Array.from({ length: 30 }, () => open(k.key, `/v1/executions/${started.body.id}/stream`)));
    await Promise.all(streams.map((s) => s.done));
    await waitFor(api, k.key, started.body.id);
    for (const s of streams) {
      const events = parseSse(s.text);
      assert.equal(events.at(-1)?.event, 'execution.succeeded');
      assert.deepEqual(events.map((e) => e.id), [...events.map((e) => e.id)].sort((a, b) => a - b), 'in order');
    }
    await new Promise((r) => setTimeout(r, 600)); // statistics are reported up to half a second late
    const used = (await reads()) - before;
    // Before: every stream read the table on every signal (30 streams × ~10 batches: ~300). Now
    // one read per signal for all of them, and none once the run feeds the tail from this
    // process; the counter also sees every other scan of the table in this file's database (the
    // earlier tests' streams winding down): 2–19 measured through the pool under load, and 30
    // once in a fresh-clone CI (2026-11-29, the same before and after that day's changes). The
    // bound is a fifth of reading per stream per signal.
    assert.ok(used < 60, `${used} reads of execution_events for 30 streams`);
  });
});
