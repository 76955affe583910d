import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateSdkFiles, SDK_FILES } from '../../scripts/sdk-generate';
import { Client, OPERATIONS } from '../../sdk/src/index';

// The typed client's generated half is the document's (docs/sdk.md): regenerated here from the
// router as it is, it must equal what is committed — an endpoint changed without
// `npm run sdk:generate` fails this test — and every operation has its method on the client.
// The document's examples are type-checked against the built client, and run, by
// test/sdk/examples.int.test.ts.

describe('the typed client is as new as the OpenAPI document', () => {
  it('sdk/openapi.json and sdk/src/generated/openapi.ts are what the router generates now', async () => {
    const now = await generateSdkFiles();
    assert.ok(readFileSync(SDK_FILES.document, 'utf8') === now.document, 'sdk/openapi.json is older than the document: run `npm run sdk:generate`');
    assert.ok(readFileSync(SDK_FILES.types, 'utf8') === now.types, 'sdk/src/generated/openapi.ts is older than the document: run `npm run sdk:generate`');
  });

  it('every operation of the document has its method on the client', async () => {
    const doc = JSON.parse((await generateSdkFiles()).document) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])));
    assert.deepEqual([...ids].sort(), Object.keys(OPERATIONS).sort());
    const client = new Client({ apiKey: 'svc_test_sk_unused' }) as unknown as Record<string, Record<string, unknown>>;
    for (const [id, where] of Object.entries(OPERATIONS)) {
      const [resource, method] = where.split('.') as [string, string | undefined];
      const fn = method ? client[resource]?.[method] : client[resource];
      assert.equal(typeof fn, 'function', `${id}: client.${where} is missing`);
    }
  });
});
