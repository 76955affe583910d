import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { buildSdk } from '../../scripts/sdk-build';

// The package as users get it (docs/sdk.md): the root build's step compiles sdk/ into plain ES
// modules with their types, which load in Node with nothing installed beside them.

const out = mkdtempSync(path.join(os.tmpdir(), 'sdk-dist-'));
after(() => rmSync(out, { recursive: true, force: true }));

describe('the built SDK', () => {
  it('compiles to ES modules with types, and its entry exports the client', async () => {
    await buildSdk(out);
    // As in the package: sdk/package.json says `"type": "module"`.
    writeFileSync(path.join(out, 'package.json'), '{"type": "module"}');
    for (const file of ['index.js', 'index.d.ts', 'generated/openapi.d.ts', 'stream.js', 'webhooks.js']) assert.ok(existsSync(path.join(out, file)), file);
    const sdk = (await import(pathToFileURL(path.join(out, 'index.js')).href)) as typeof import('../../sdk/src/index');
    assert.equal(typeof sdk.Client, 'function');
    assert.equal(typeof sdk.verifyWebhook, 'function');
    assert.ok(new sdk.NotFoundError('x') instanceof sdk.ApiError);
    const client = new sdk.Client({ apiKey: 'svc_test_sk_x', baseUrl: 'http://127.0.0.1:9/' });
    assert.equal(typeof client.agents.execute, 'function');
  });
});
