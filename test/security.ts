import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Environment } from '../db/schema';
import type { Scope } from '../server/modules/vocabulary/scopes';
import { expectError, expectStatus } from './expect';
import type { ApiResponse, SeededKey, TestServer } from './harness';

// One suite every authenticated route runs (docs/api.md, "Errors", "Keys and scopes"): no key,
// malformed key, revoked key, expired key, wrong scope, and another workspace's or environment's
// resource. A route joins by describing itself; the suite makes its own workspaces, keys and
// resources.

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path; `{id}` (and any other `{name}`) stands for a resource made with `create`. */
  path: string;
  /** The scope the route needs. */
  scope: Scope;
  /** A second scope that also grants it (budgets' reads take `analytics:read`). */
  alsoScope?: Scope;
  /** Status of success (201 for creations). */
  successStatus: number;
  /** A valid body, for routes that take one. */
  body?: () => Record<string, unknown>;
  /** A valid body that needs the owner's own resources (made once, before the suite's tests): e.g. a schedule's agent. */
  bodyFor?: (api: TestServer, owner: SeededKey) => Promise<Record<string, unknown>>;
  /**
   * Makes a resource in `owner`'s workspace and environment and returns its id, or, for a path
   * with more than `{id}`, the value of each of its parameters (`{ id, deliveryId }`). Needed
   * when the path has parameters; for lists it is what must not show up for other
   * workspaces/environments. `owner` may hold only the route's scope: seed another key of its
   * workspace and environment (`api.seed.key({ workspace: owner.workspace, environment: owner.environment })`) to set up.
   */
  create?: (api: TestServer, owner: SeededKey) => Promise<string | Record<string, string>>;
  /** For list routes: the ids in a successful response. */
  listIds?: (body: unknown) => string[];
}

const ALL_SCOPES: Scope[] = ['agents:read', 'agents:write', 'agents:execute', 'keys:manage', 'webhooks:manage', 'analytics:read', 'budgets:manage', 'audit:read', 'evals:manage'];

export function securitySuite(server: () => TestServer, route: RouteSpec): void {
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const needsId = params.length > 0;
  if (needsId) assert.ok(route.create, `${route.path}: a route with {id} needs create()`);

  describe(`security: ${route.method} ${route.path}`, () => {
    let api: TestServer;
    let owner: SeededKey;
    let expiring: SeededKey;

    /** A fresh target: the path (with a fresh resource of `resourceOwner` when it has parameters). */
    async function target(resourceOwner: SeededKey = owner): Promise<{ path: string }> {
      if (!needsId) return { path: route.path };
      const made = await route.create!(api, resourceOwner);
      const values = typeof made === 'string' ? { id: made } : made;
      for (const p of params) assert.ok(values[p], `${route.path}: create() gave no ${p}`);
      return { path: route.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(values[p]!)) };
    }

    let ownBody: Record<string, unknown> | undefined;
    const call = (path: string, init: { key?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<unknown>> =>
      api.request(route.method, path, { ...init, body: ownBody ?? route.body?.() });

    /** The failed request changed nothing: the owner can still act on the resource. */
    async function stillThere(path: string) {
      if (needsId) expectStatus(await call(path, { key: owner.key }), route.successStatus);
    }

    before(async () => {
      api = server();
      owner = await api.seed.key({ scopes: [route.scope] });
      expiring = await api.seed.key({
        workspace: owner.workspace,
        environment: owner.environment,
        scopes: [route.scope],
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      if (route.bodyFor) ownBody = await route.bodyFor(api, owner);
    });

    it('succeeds with a key of the right workspace, environment and scope', async () => {
      const { path } = await target();
      expectStatus(await call(path, { key: owner.key }), route.successStatus);
    });

    it('no key → 401 missing_api_key', async () => {
      const { path } = await target();
      expectError(await call(path), 401, 'missing_api_key');
      await stillThere(path);
    });

    it('malformed key → 401 invalid_api_key', async () => {
      const { path } = await target();
      for (const key of ['svc_test_sk_short', `${owner.key.slice(0, -1)}${owner.key.endsWith('0') ? '1' : '0'}`, 'not a key']) {
        expectError(await call(path, { key }), 401, 'invalid_api_key');
      }
      await stillThere(path);
    });

    it('revoked key → 401 api_key_revoked', async () => {
      const revoked = await api.seed.key({ workspace: owner.workspace, environment: owner.environment, scopes: ALL_SCOPES });
      expectStatus(await api.request('DELETE', `/v1/keys/${revoked.id}`, { key: revoked.key }), 200);
      const { path } = await target();
      expectError(await call(path, { key: revoked.key }), 401, 'api_key_revoked');
      await stillThere(path);
    });

    it('wrong scope → 403 insufficient_scope naming the scope', async () => {
      const others = ALL_SCOPES.filter((s) => s !== route.scope && s !== route.alsoScope);
      const weak = await api.seed.key({ workspace: owner.workspace, environment: owner.environment, scopes: others });
      const { path } = await target();
      const err = expectError(await call(path, { key: weak.key }), 403, 'insufficient_scope');
      assert.ok(err.message.includes(route.scope), err.message);
      await stillThere(path);
    });

    for (const [label, foreignOf] of [
      ['another workspace', async () => api.seed.key({ environment: owner.environment, scopes: [route.scope] })],
      ['another environment', async () => api.seed.key({ workspace: owner.workspace, environment: other(owner.environment), scopes: [route.scope] })],
    ] as const) {
      if (needsId) {
        it(`${label}'s resource → 404 resource_not_found (never 403), and it is untouched`, async () => {
          const foreign = await foreignOf();
          const { path } = await target(foreign);
          expectError(await call(path, { key: owner.key }), 404, 'resource_not_found');
          expectStatus(await call(path, { key: foreign.key }), route.successStatus);
        });
      } else if (route.listIds && route.create) {
        it(`${label}'s resources are not listed`, async () => {
          const foreign = await foreignOf();
          const foreignId = (await route.create!(api, foreign)) as string;
          const mineId = (await route.create!(api, owner)) as string;
          const res = await call(route.path, { key: owner.key });
          expectStatus(res, route.successStatus);
          const ids = route.listIds!(res.body);
          assert.ok(ids.includes(mineId), 'own resource not listed');
          assert.ok(!ids.includes(foreignId), `${label}'s resource is listed`);
        });
      }
    }

    it('expired key → 401 api_key_expired', async () => {
      const { path } = await target();
      // Its expiry moved into the past, as time would (test/api/keys.int.test.ts waits for a real
      // one); waiting a second in each of the ~30 suites cost ~30 s per database.
      await api.query(sql`update api_keys set expires_at = ${new Date(Date.now() - 1_000).toISOString()} where id = ${expiring.id}`);
      expectError(await call(path, { key: expiring.key }), 401, 'api_key_expired');
      await stillThere(path);
    });
  });
}

const other = (env: Environment): Environment => (env === 'live' ? 'test' : 'live');
