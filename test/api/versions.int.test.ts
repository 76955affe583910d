import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AgentVersionView } from '../../server/modules/agents/version-schemas';
import type { AgentView } from '../../server/modules/agents/service';
import { canonicalJson } from '../../server/platform/canonical-json';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import { eventually } from '../eventually';

// Agent versions and labels (docs/versions.md): every change of behaviour makes an immutable
// version (never a rename, metadata or a no-op), listed newest first with author, note and
// digest; labels point at versions (`production` follows the latest until moved), every move
// audited and sent as `agent.label_moved`; bad input is refused and writes nothing.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(async () => {
  await api?.close();
});

type VersionList = { data: AgentVersionView[]; hasMore: boolean; nextCursor?: string; prevCursor?: string };
const tenant = (): Promise<SeededKey> => api.seed.key({ ...UNLIMITED, environment: 'live' });
const create = async (key: SeededKey, body: Record<string, unknown> = {}) => {
  const res = await api.request<AgentView>('POST', '/v1/agents', { key: key.key, body: { name: 'Versioned', instructions: 'One.', ...body } });
  expectStatus(res, 201);
  return res.body;
};
const patch = (key: SeededKey, id: string, body: Record<string, unknown>) => api.request<AgentView>('PATCH', `/v1/agents/${id}`, { key: key.key, body });
const versions = (key: SeededKey, id: string, query = '') => api.request<VersionList>('GET', `/v1/agents/${id}/versions${query}`, { key: key.key });
const label = (key: SeededKey, id: string, name: string, version: unknown) => api.request<AgentView>('PUT', `/v1/agents/${id}/labels/${encodeURIComponent(name)}`, { key: key.key, body: { version } });

describe('agent versions', () => {
  it('creating is version 1; a behaviour change is the next; a rename, metadata or a no-op makes none', async () => {
    const key = await tenant();
    const agent = await create(key, { versionNote: 'First cut' });
    assert.equal(agent.version, 1);
    assert.deepEqual(agent.labels, { production: 1 });
    const first = await versions(key, agent.id);
    expectStatus(first, 200);
    const [v1] = first.body.data;
    assert.equal(v1!.version, 1);
    assert.equal(v1!.note, 'First cut');
    assert.deepEqual(v1!.createdBy, { type: 'key', id: key.id, prefix: v1!.createdBy.type === 'key' ? v1!.createdBy.prefix : null });
    assert.match(v1!.createdBy.type === 'key' ? (v1!.createdBy.prefix ?? '') : '', /^svc_/);
    assert.equal(v1!.config.instructions, 'One.');
    assert.equal(v1!.digest, createHash('sha256').update(canonicalJson(v1!.config)).digest('hex'), 'the digest is of the canonical config shown');

    for (const body of [{ name: 'Renamed' }, { metadata: { team: 'a' } }, { description: 'x' }, { instructions: 'One.' }, {}]) {
      const res = await patch(key, agent.id, { ...body, versionNote: 'ignored' });
      expectStatus(res, 200);
      assert.equal(res.body.version, 1, JSON.stringify(body));
    }
    const changed = await patch(key, agent.id, { instructions: 'Two.', versionNote: 'Shorter' });
    assert.equal(changed.body.version, 2);
    assert.deepEqual(changed.body.labels, { production: 2 }, 'production follows the latest');
    const temp = await patch(key, agent.id, { temperature: 0.5 });
    assert.equal(temp.body.version, 3);
    const list = await versions(key, agent.id);
    assert.deepEqual(list.body.data.map((v) => [v.version, v.note, v.config.instructions, v.config.temperature]), [
      [3, null, 'Two.', 0.5],
      [2, 'Shorter', 'Two.', null],
      [1, 'First cut', 'One.', null],
    ]);
    const one = await api.request<AgentVersionView>('GET', `/v1/agents/${agent.id}/versions/2`, { key: key.key });
    expectStatus(one, 200);
    assert.deepEqual(one.body, list.body.data[1]);
    expectError(await api.request('GET', `/v1/agents/${agent.id}/versions/9`, { key: key.key }), 404, 'resource_not_found', 'version');
    expectError(await api.request('GET', `/v1/agents/${agent.id}/versions/abc`, { key: key.key }), 400, 'invalid_parameter', 'version');
  });

  it('pages newest first on the version number', async () => {
    const key = await tenant();
    const agent = await create(key);
    for (const n of [2, 3, 4]) await patch(key, agent.id, { maxSteps: n + 1 });
    const page1 = await versions(key, agent.id, '?limit=2');
    assert.deepEqual(page1.body.data.map((v) => v.version), [4, 3]);
    assert.equal(page1.body.hasMore, true);
    assert.equal(page1.body.nextCursor, '3');
    const page2 = await versions(key, agent.id, `?limit=2&after=${page1.body.nextCursor}`);
    assert.deepEqual(page2.body.data.map((v) => v.version), [2, 1]);
    assert.equal(page2.body.hasMore, false);
    assert.equal(page2.body.prevCursor, '2');
    const back = await versions(key, agent.id, '?limit=2&before=2');
    assert.deepEqual(back.body.data.map((v) => v.version), [4, 3]);
    expectError(await versions(key, agent.id, '?after=x'), 400, 'invalid_cursor', 'after');
    expectError(await versions(key, agent.id, '?after=1&before=2'), 400, 'parameter_conflict');
  });

  it('an MCP header value stays write-only in versions; changing it is a new version', async () => {
    const key = await tenant();
    const mcp = { type: 'mcp', name: 'docs', url: 'https://93.184.215.14/mcp', headers: { Authorization: 'Bearer one-secret' } };
    const agent = await create(key, { tools: [mcp] });
    const rotated = await patch(key, agent.id, { tools: [{ ...mcp, headers: { Authorization: 'Bearer two-secret' } }] });
    assert.equal(rotated.body.version, 2, 'a new credential is new behaviour');
    const list = await versions(key, agent.id);
    const text = JSON.stringify(list.body);
    assert.ok(!text.includes('one-secret') && !text.includes('two-secret'), 'no header value in any version');
    assert.equal(list.body.data[0]!.digest, list.body.data[1]!.digest, 'the digest is of what is shown: the masked config');
    const kept = await patch(key, agent.id, { tools: [{ ...mcp, headers: { Authorization: '********' } }] });
    assert.equal(kept.body.version, 2, 'the masked value kept: no change');
  });
});

describe('agent labels', () => {
  it('moves, follows the latest, removes; each move audited and sent as agent.label_moved', async () => {
    const key = await tenant();
    const agent = await create(key);
    await patch(key, agent.id, { instructions: 'Two.' });
    const staged = await label(key, agent.id, 'staging', 1);
    expectStatus(staged, 200);
    assert.deepEqual(staged.body.labels, { production: 2, staging: 1 });
    const pinned = await label(key, agent.id, 'production', 1);
    assert.deepEqual(pinned.body.labels, { production: 1, staging: 1 });
    const three = await patch(key, agent.id, { instructions: 'Three.' });
    assert.deepEqual(three.body.labels, { production: 1, staging: 1 }, 'a moved production stays where it was put');
    const follow = await label(key, agent.id, 'production', 'latest');
    assert.deepEqual(follow.body.labels, { production: 3, staging: 1 });
    const removed = await api.request<AgentView>('DELETE', `/v1/agents/${agent.id}/labels/staging`, { key: key.key });
    expectStatus(removed, 200);
    assert.deepEqual(removed.body.labels, { production: 3 });

    const audit = await api.request<{ data: { action: string; changes: Record<string, unknown> }[] }>('GET', `/v1/audit-events?targetId=${agent.id}&limit=100`, { key: key.key });
    expectStatus(audit, 200);
    const moves = audit.body.data.filter((e) => e.action.startsWith('agent.label_')).reverse();
    assert.deepEqual(moves.map((e) => [e.action, e.changes]), [
      ['agent.label_moved', { 'labels.staging': [null, 1] }],
      ['agent.label_moved', { 'labels.production': ['latest', 1] }],
      ['agent.label_moved', { 'labels.production': [1, 'latest'] }],
      ['agent.label_removed', { 'labels.staging': [1, null] }],
    ]);
    const events = await api.request<{ data: { type: string; data: { object: AgentView & { labelMoved: unknown } } }[] }>('GET', '/v1/events?type=agent.label_moved&limit=10', { key: key.key });
    expectStatus(events, 200);
    assert.equal(events.body.data.length, 4);
    assert.deepEqual(events.body.data[0]!.data.object.labelMoved, { label: 'staging', from: 1, to: null, followsLatest: false });
    assert.deepEqual(events.body.data[1]!.data.object.labelMoved, { label: 'production', from: 1, to: 3, followsLatest: true });
  });

  it('refuses bad names, unknown versions, the 21st label, removing production; nothing written', async () => {
    const key = await tenant();
    const agent = await create(key);
    for (const bad of ['Prod', 'a'.repeat(41), '__proto__', 'prödüction', 'with space', 'a_b']) {
      expectError(await label(key, agent.id, bad, 1), 400, 'invalid_parameter', 'label');
    }
    expectError(await label(key, agent.id, 'staging', 2), 400, 'invalid_parameter', 'version');
    expectError(await label(key, agent.id, 'staging', 0), 400, 'invalid_parameter', 'version');
    expectError(await label(key, agent.id, 'staging', 'newest'), 400, 'invalid_parameter', 'version');
    expectError(await label(key, agent.id, 'staging', 1.5), 400, 'invalid_parameter', 'version');
    expectError(await api.request('DELETE', `/v1/agents/${agent.id}/labels/production`, { key: key.key }), 400, 'invalid_parameter', 'label');
    expectError(await api.request('DELETE', `/v1/agents/${agent.id}/labels/nope`, { key: key.key }), 404, 'resource_not_found', 'label');
    for (let i = 1; i < 20; i++) expectStatus(await label(key, agent.id, `l-${i}`, 1), 200);
    expectError(await label(key, agent.id, 'one-too-many', 1), 400, 'invalid_parameter', 'label');
    expectStatus(await label(key, agent.id, 'l-1', 'latest'), 200);
    const after = await api.request<AgentView>('GET', `/v1/agents/${agent.id}`, { key: key.key });
    assert.equal(Object.keys(after.body.labels).length, 20);
    assert.equal(Object.hasOwn(after.body.labels, 'staging'), false);
  });

  it('a label move racing another: both land, none lost (the row lock)', async () => {
    const key = await tenant();
    const agent = await create(key);
    const moves = await Promise.all(Array.from({ length: 10 }, (_, i) => label(key, agent.id, `race-${i}`, 1)));
    for (const m of moves) expectStatus(m, 200);
    const after = await api.request<AgentView>('GET', `/v1/agents/${agent.id}`, { key: key.key });
    assert.equal(Object.keys(after.body.labels).length, 11);
  });
});

type Run = { id: string; status: string; agentVersion: number | null; model: string; conversationId: string; error: { code: string } | null };
const run = (key: SeededKey, id: string, body: Record<string, unknown>) => api.request<Run>('POST', `/v1/agents/${id}/execute`, { key: key.key, body: { input: 'hello there', wait: true, ...body } });

describe('which version runs', () => {
  // Version 1 runs freely; version 2 caps a run at 1 token (it fails max_tokens_exceeded) on another model: which one ran shows.
  async function twoVersions(key: SeededKey) {
    const agent = await create(key, { model: 'sandbox/echo' });
    expectStatus(await patch(key, agent.id, { model: 'sandbox/slow', maxTotalTokens: 1 }), 200);
    return agent.id;
  }
  const ranV1 = (r: Run) => r.status === 'succeeded' && r.model === 'sandbox/echo' && r.agentVersion === 1;
  const ranV2 = (r: Run) => r.status === 'failed' && r.error?.code === 'max_tokens_exceeded' && r.model === 'sandbox/slow' && r.agentVersion === 2;

  it('production by default; a version or a label when asked; a moved production from the answer on', async () => {
    const key = await tenant();
    const id = await twoVersions(key);
    assert.ok(ranV2((await run(key, id, {})).body), 'production follows the latest: version 2');
    assert.ok(ranV1((await run(key, id, { version: 1 })).body), 'version 1 asked for');
    expectStatus(await label(key, id, 'staging', 1), 200);
    assert.ok(ranV1((await run(key, id, { label: 'staging' })).body), 'the label’s version');
    expectStatus(await label(key, id, 'production', 1), 200);
    assert.ok(ranV1((await run(key, id, {})).body), 'rolled back: production is version 1');
    // Queued, then claimed by the worker pool (not run in place): the claim reads the version too.
    const queued = await api.request<Run>('POST', `/v1/agents/${id}/execute`, { key: key.key, body: { input: 'queued', version: 2 } });
    expectStatus(queued, 202);
    assert.equal(queued.body.agentVersion, 2);
    const done = await eventually('the queued run ends', async () => (await api.request<Run>('GET', `/v1/executions/${queued.body.id}`, { key: key.key })).body, (e) => e.status !== 'queued' && e.status !== 'running');
    assert.ok(ranV2(done), JSON.stringify(done));
    const filtered = await api.request<{ data: Run[] }>('GET', `/v1/executions?agentId=${id}&agentVersion=1`, { key: key.key });
    assert.equal(filtered.body.data.length, 3);
    assert.ok(filtered.body.data.every((e) => e.agentVersion === 1));
  });

  it('a conversation’s later turns run its first turn’s version unless they name one', async () => {
    const key = await tenant();
    const id = await twoVersions(key);
    const first = await run(key, id, { version: 1 });
    assert.ok(ranV1(first.body));
    const later = await run(key, id, { conversationId: first.body.conversationId, input: 'and again' });
    assert.ok(ranV1(later.body), 'the first turn’s version, not production’s');
    const named = await run(key, id, { conversationId: first.body.conversationId, input: 'now v2', version: 2 });
    assert.ok(ranV2(named.body), 'a turn that names one runs it');
  });

  it('usage analytics group by version and filter by it, from records and again after compaction', async () => {
    const key = await tenant();
    const id = await twoVersions(key);
    for (const version of [1, 1, 2]) await run(key, id, { version });
    const today = new Date().toISOString().slice(0, 10);
    type Usage = { totals: { executions: number }; data: { results: { agentVersion?: number; executions: number }[] }[] };
    const read = async (query: string) => {
      const res = await api.request<Usage>('GET', `/v1/analytics/executions?start=${today}&agentId=${id}${query}`, { key: key.key });
      expectStatus(res, 200);
      return res.body;
    };
    const byVersion = (u: Usage) => u.data.flatMap((b) => b.results).map((r) => [r.agentVersion, r.executions]).sort();
    const first = await eventually('the runs are counted', () => read('&groupBy=agentVersion'), (u) => u.totals.executions === 3);
    assert.deepEqual(byVersion(first), [[1, 2], [2, 1]]);
    assert.equal((await read('&agentVersion=2')).totals.executions, 1);
    const { compactAll } = await import('../../server/modules/usage/compactor');
    await compactAll(api.db);
    assert.deepEqual(byVersion(await read('&groupBy=agentVersion')), [[1, 2], [2, 1]], 'the same from the rollups');
    assert.equal((await read('&agentVersion=1')).totals.executions, 2);
  });

  it('refuses an unknown version or label, and both at once; nothing is created', async () => {
    const key = await tenant();
    const id = await twoVersions(key);
    expectError(await run(key, id, { version: 3 }), 400, 'invalid_parameter', 'version');
    expectError(await run(key, id, { version: 0 }), 400, 'invalid_parameter', 'version');
    expectError(await run(key, id, { label: 'nope' }), 400, 'invalid_parameter', 'label');
    expectError(await run(key, id, { label: '__proto__' }), 400, 'invalid_parameter', 'label');
    expectError(await run(key, id, { label: 'staging', version: 1 }), 400, 'parameter_conflict', 'label');
    const listed = await api.request<{ data: Run[] }>('GET', `/v1/executions?agentId=${id}`, { key: key.key });
    assert.equal(listed.body.data.length, 0);
  });
});

/** An agent of the owner's workspace, made with a key of its own (the owner may hold only the route's scope). */
async function agentOf(owner: SeededKey): Promise<string> {
  const admin = await api.seed.key({ workspace: owner.workspace, environment: owner.environment });
  const res = await api.request<AgentView>('POST', '/v1/agents', { key: admin.key, body: { name: 'Sec' } });
  expectStatus(res, 201);
  await api.request('PUT', `/v1/agents/${res.body.id}/labels/staging`, { key: admin.key, body: { version: 1 } });
  return res.body.id;
}

securitySuite(() => api, { method: 'GET', path: '/v1/agents/{id}/versions', scope: 'agents:read', successStatus: 200, create: (_a, owner) => agentOf(owner) });
securitySuite(() => api, {
  method: 'GET',
  path: '/v1/agents/{id}/versions/{version}',
  scope: 'agents:read',
  successStatus: 200,
  create: async (_a, owner) => ({ id: await agentOf(owner), version: '1' }),
});
securitySuite(() => api, {
  method: 'PUT',
  path: '/v1/agents/{id}/labels/{label}',
  scope: 'agents:write',
  successStatus: 200,
  body: () => ({ version: 1 }),
  create: async (_a, owner) => ({ id: await agentOf(owner), label: 'staging' }),
});
securitySuite(() => api, {
  method: 'DELETE',
  path: '/v1/agents/{id}/labels/{label}',
  scope: 'agents:write',
  successStatus: 200,
  create: async (_a, owner) => ({ id: await agentOf(owner), label: 'staging' }),
});
