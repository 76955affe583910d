import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILT_OPERATIONS } from '../../../test/built-routes';
import { appRouter } from '../trpc/router';
import { RAW_ROUTES } from './raw-routes';
import { buildRouteTable, matchRoute } from './routes';

const routes = buildRouteTable(appRouter, RAW_ROUTES);

describe('REST route table', () => {
  it('holds exactly the routes with OpenAPI meta and the raw routes (no dashboard-only procedures)', () => {
    assert.deepEqual(routes.map((r) => `${r.method} ${r.template}`).sort(), BUILT_OPERATIONS);
  });

  it('tells an execution from its stream and its cancel; execute is a procedure answering 202, stream a raw route, both agents:execute', () => {
    const id = 'exe_01JD8X3ZQ2N6W5V4T3S2R1P0MK';
    const target = (m: string, p: string) => {
      const found = matchRoute(routes, m, p);
      assert.equal(found.kind, 'found', `${m} ${p}`);
      return found.kind === 'found' ? found.route : null!;
    };
    assert.equal(target('GET', `/v1/executions/${id}`).template, '/v1/executions/{id}');
    assert.equal(target('GET', `/v1/executions/${id}/stream`).target.kind, 'raw');
    assert.equal(target('POST', `/v1/executions/${id}/cancel`).template, '/v1/executions/{id}/cancel');
    const execute = target('POST', '/v1/agents/agt_1/execute');
    assert.deepEqual([execute.target.kind, execute.target.kind === 'procedure' && execute.target.path, execute.successStatus], ['procedure', 'executions.execute', 202]);
    assert.equal(execute.scope, 'agents:execute');
    assert.equal(target('GET', `/v1/executions/${id}/stream`).scope, 'agents:execute');
    assert.deepEqual(matchRoute(routes, 'GET', '/v1/agents/agt_1/execute'), { kind: 'method_not_allowed', allow: ['POST'] });
  });

  it('carries each route’s scope, success status, auth and target', () => {
    const by = (m: string, t: string) => routes.find((r) => r.method === m && r.template === t)!;
    assert.equal(by('POST', '/v1/keys').successStatus, 201);
    assert.equal(by('GET', '/v1/keys').successStatus, 200);
    assert.equal(by('DELETE', '/v1/keys/{id}').successStatus, 200);
    for (const r of routes.filter((r) => r.template.startsWith('/v1/keys'))) {
      assert.equal(r.scope, 'keys:manage');
      assert.equal(r.auth, true);
      assert.equal(r.target.kind, 'procedure');
    }
    assert.equal(by('GET', '/v1/openapi.json').auth, false);
    assert.equal(by('GET', '/v1/openapi.json').target.kind, 'raw');
  });

  it('finds a route by method and path, with or without a trailing slash, and names its parameters', () => {
    const found = matchRoute(routes, 'DELETE', '/v1/keys/key_01JD8X3ZQ2N6W5V4T3S2R1P0MK');
    assert.equal(found.kind, 'found');
    assert.equal(found.kind === 'found' && found.route.target.kind === 'procedure' && found.route.target.path, 'keys.revoke');
    assert.deepEqual(found.kind === 'found' && found.params, { id: 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK' });
    assert.equal(matchRoute(routes, 'GET', '/v1/keys/').kind, 'found');
  });

  it('answers method_not_allowed with the methods the path allows', () => {
    assert.deepEqual(matchRoute(routes, 'PUT', '/v1/keys'), { kind: 'method_not_allowed', allow: ['POST', 'GET'] });
    assert.deepEqual(matchRoute(routes, 'GET', '/v1/keys/key_x'), { kind: 'method_not_allowed', allow: ['DELETE'] });
    assert.deepEqual(matchRoute(routes, 'POST', '/v1/openapi.json'), { kind: 'method_not_allowed', allow: ['GET'] });
  });

  it('does not find unknown paths', () => {
    for (const path of ['/v1/nope', '/v1', '/v1/keys/a/b', '/v1/keysx', '/v2/keys', '/v1/openapi_json']) {
      assert.deepEqual(matchRoute(routes, 'GET', path), { kind: 'not_found' }, path);
    }
  });
});
