// test: once, shared — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import { after, before } from 'node:test';
import { startServer, type SeededKey, type TestServer } from '../harness';
import { securitySuite } from '../security';
import type { KeyList } from './types';

// The shared security suite on every key route. Routes of other resources join the same way.

let api: TestServer;
before(async () => {
  api = await startServer();
});
after(() => api?.close());

const server = () => api;
const makeKey = async (s: TestServer, owner: SeededKey) =>
  (await s.seed.key({ workspace: owner.workspace, environment: owner.environment, scopes: ['agents:read'] })).id;

securitySuite(server, {
  method: 'POST',
  path: '/v1/keys',
  scope: 'keys:manage',
  successStatus: 201,
  body: () => ({ name: 'security', scopes: ['keys:manage'] }),
});

securitySuite(server, {
  method: 'GET',
  path: '/v1/keys',
  scope: 'keys:manage',
  successStatus: 200,
  create: makeKey,
  listIds: (body) => (body as KeyList).data.map((k) => k.id),
});

securitySuite(server, {
  method: 'DELETE',
  path: '/v1/keys/{id}',
  scope: 'keys:manage',
  successStatus: 200,
  create: makeKey,
});
