import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateSdkFiles, SDK_FILES } from '../../scripts/sdk-generate';
import { Client, OPERATIONS } from '../../sdk/src/index';

// The typed client's generated half is the document's (docs/sdk.md): regenerated here from the
// router as it is, it must equal what is committed — an endpoint changed without
// `npm run sdk:generate` fails this test — and every operation has its method on the client.

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

describe('the examples in the document', () => {
  it('every operation’s TypeScript example compiles against the client', async () => {
    const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const path = await import('node:path');
    const { execFileSync } = await import('node:child_process');
    const { createRequire } = await import('node:module');
    const doc = JSON.parse((await generateSdkFiles()).document) as { info?: { description?: string }; paths: Record<string, Record<string, { operationId?: string; 'x-codeSamples'?: { source: string }[] }>> };
    const root = path.resolve(import.meta.dirname ?? '.', '..', '..');
    mkdirSync(path.join(root, '.tmp'), { recursive: true });
    const dir = mkdtempSync(path.join(root, '.tmp', 'samples-'));
    try {
      let n = 0;
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item)) {
          const source = op['x-codeSamples']?.[0]?.source;
          assert.ok(source, `${op.operationId} has an example`);
          writeFileSync(path.join(dir, `${op.operationId}.ts`), `${source}\nexport {};\n`);
          n++;
        }
      }
      assert.equal(n, Object.keys(OPERATIONS).length);
      // And the introduction's (Getting started).
      const intro = [...((doc as { info?: { description?: string } }).info?.description ?? '').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
      assert.ok(intro.length >= 1, 'the introduction shows the client');
      intro.forEach((source, i) => writeFileSync(path.join(dir, `intro-${i}.ts`), `${source}\nexport {};\n`));
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2023', 'DOM'], types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')], paths: { 'agent-automation-sdk': [path.join(root, 'sdk', 'src', 'index.ts')] } },
          include: ['*.ts'],
        }),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      try {
        execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
      } catch (err) {
        assert.fail(`the examples do not compile:\n${(err as { stdout?: string }).stdout}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
