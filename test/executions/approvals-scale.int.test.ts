// test: processes — several real server processes on one PostgreSQL database: the PostgreSQL pass runs these one at a time, never beside each other (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { DB_KIND } from '../harness';
import { callProcess, QUICK_LOST_WORKER, seedTenant, startProcess, startScaledOut, startWorker, stop, waitReady, type Proc, type ScaledOut } from '../processes';
import { readStream, type Execution } from './helpers';
import { eventually } from '../eventually';

// Approvals across processes (docs/approvals.md): 2 web + 1 worker on PostgreSQL. A run paused
// on the worker is decided on either web process; two decisions racing on the two run the call
// once; a worker killed while an approved call is in flight fails the run `worker_lost` and the
// call is never sent again.

const skip = DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)';

describe('approvals on 2 web + 1 worker processes', { skip }, () => {
  let scaled: ScaledOut;
  let tools: ToolServer;
  let a: Proc;
  let b: Proc;
  let worker: Proc;
  let key: string;
  let env: Record<string, string>;

  const call = <T>(proc: Proc, method: string, p: string, body?: unknown) => callProcess<T>(proc.url, key, method, p, body);
  const until = (proc: Proc, id: string, done: (e: Execution) => boolean, timeoutMs = 20_000) =>
    eventually(`execution ${id}`, async () => (await call<Execution>(proc, 'GET', `/v1/executions/${id}`)).body, done, { timeoutMs, everyMs: 50 });
  const final = (e: Execution) => ['succeeded', 'failed', 'cancelled'].includes(e.status);

  async function paused(path: string): Promise<{ id: string; callId: string }> {
    const agent = await call<{ id: string }>(a, 'POST', '/v1/agents', {
      name: 'refunds',
      tools: [{ type: 'http', name: 'refund', description: 'Refunds', url: `${tools.url}${path}`, parameters: { type: 'object', properties: { query: { type: 'string' } } }, approval: 'always' }],
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const run = await call<Execution>(a, 'POST', `/v1/agents/${agent.body.id}/execute`, { input: 'please refund order 7', wait: true });
    assert.equal(run.status, 200);
    assert.equal(run.body.status, 'requires_action', JSON.stringify(run.body));
    return { id: run.body.id, callId: run.body.requiredAction!.toolCalls[0]!.id };
  }

  before(async () => {
    tools = await startToolServer();
    scaled = await startScaledOut({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    ({ a, b, worker, env } = scaled);
    ({ key } = await seedTenant(scaled.database.db, { name: 'approvals' }));
  });

  after(async () => {
    await Promise.all([stop(a), stop(b), stop(worker)]);
    await tools?.close();
    await scaled?.close();
  });

  it('two decisions racing on web A and web B: one wins, the call runs once, a stream on B follows the resumed run', async () => {
    const before = tools.requests.length;
    const { id, callId } = await paused('/echo');
    const decision = { decisions: [{ toolCallId: callId, approve: true }] };
    const [x, y] = await Promise.all([call(a, 'POST', `/v1/executions/${id}/approvals`, decision), call(b, 'POST', `/v1/executions/${id}/approvals`, decision)]);
    assert.deepEqual([x.status, y.status].sort(), [200, 409]);
    const stream = await readStream(`${b.url}/v1/executions/${id}/stream`, { key });
    assert.equal(stream.events.at(-1)!.event, 'execution.succeeded');
    assert.equal(tools.requests.slice(before).filter((r) => r.path === '/echo').length, 1);
  });

  it('a paused run survives the restart of every process', async () => {
    const { id, callId } = await paused('/echo');
    await Promise.all([stop(a), stop(b), stop(worker)]);
    a = await startProcess({ ...env, RUN_WORKERS: 'false' });
    b = await startProcess({ ...env, RUN_WORKERS: 'false' });
    worker = await startWorker(env);
    await Promise.all([waitReady(a), waitReady(b)]);
    const got = await call<Execution>(b, 'GET', `/v1/executions/${id}`);
    assert.equal(got.body.status, 'requires_action');
    const done = await call<Execution>(a, 'POST', `/v1/executions/${id}/approvals`, { decisions: [{ toolCallId: callId, approve: true }], wait: true });
    assert.equal(done.status, 200);
    assert.equal(done.body.status, 'succeeded', JSON.stringify(done.body.error));
  });

  // The attack review of 2026-11-28: with web processes only, an approval 31 s after `expiresAt`
  // ran the tool once a worker came back (only a worker's sweep looked at the clock).
  it('with no worker running, a decision after expiresAt is 409 approval_expired on a web process; the call never runs', async () => {
    const before = tools.requests.length;
    const { id, callId } = await paused('/echo');
    await stop(worker);
    await scaled.database.db.execute(sql`update executions set
      approval = jsonb_set(approval::jsonb, '{calls,0,expiresAt}', to_jsonb(to_char((now() - interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::json where id = ${id}`);
    const late = await call<{ error: { code: string } }>(b, 'POST', `/v1/executions/${id}/approvals`, { decisions: [{ toolCallId: callId, approve: true }] });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'approval_expired');
    worker = await startWorker(env);
    const done = await until(a, id, final);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.steps[0]!.toolCalls[0]!.approval!.reason, 'expired');
    assert.equal(tools.requests.slice(before).filter((r) => r.path === '/echo').length, 0, 'the tool was never called');
  });

  it('a worker killed with the approved call in flight: worker_lost, and the call is never sent again', async () => {
    const before = tools.requests.length;
    const { id, callId } = await paused('/slow');
    const decided = await call<Execution>(b, 'POST', `/v1/executions/${id}/approvals`, { decisions: [{ toolCallId: callId, approve: true }] });
    assert.equal(decided.status, 200);
    await eventually('the tool got the call', async () => tools.requests.slice(before).filter((r) => r.path === '/slow').length, (n) => n === 1, { timeoutMs: 10_000 });
    worker.child.kill('SIGKILL');
    await new Promise((r) => worker.child.once('exit', r));
    worker = await startWorker({ ...env, ...QUICK_LOST_WORKER });
    const lost = await until(a, id, final, 60_000);
    assert.equal(lost.status, 'failed');
    assert.equal(lost.error?.code, 'worker_lost');
    // A second call would come after the run failed: a second for it to (wrongly) arrive.
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(tools.requests.slice(before).filter((r) => r.path === '/slow').length, 1, 'the approved call was made once');
  });
});
