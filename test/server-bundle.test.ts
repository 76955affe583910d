import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { ensureServerBundle, SERVER_BUNDLE_DIR } from '../server/processes/server-bundle.js';
import { sourceFingerprint } from '../server/processes/source-fingerprint.js';

// `npm start` runs the server compiled (server-bundle.js): one directory per source
// fingerprint, compiled once, reused by every later start, replaced when the sources change,
// never half-written even when several processes start at once.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-bundle-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function tree(name: string): string {
  const root = path.join(tmp, name);
  const files: Record<string, string> = {
    'server/processes/lib.ts': 'export const answer: number = 41 + 1;\n',
    'server/processes/main.ts': "import { answer } from './lib';\n(globalThis as Record<string, unknown>).mainRan = answer;\n",
    'server/processes/worker.ts': "import { answer } from './lib';\nimport 'some-package/not-installed';\nexport const worker = answer;\n",
    'server/processes/admin.ts': "import { answer } from './lib';\nexport const admin = answer;\n",
  };
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
  return root;
}

const entries = (root: string) => {
  const dir = path.join(root, SERVER_BUNDLE_DIR);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};

describe('the compiled server', () => {
  it('is compiled once per fingerprint, runs, and leaves packages to node_modules', async () => {
    const root = tree('once');
    const fingerprint = sourceFingerprint(root);
    const first = await ensureServerBundle({ root, fingerprint });
    assert.equal(first.built, true);
    assert.equal(first.dir, path.join(root, SERVER_BUNDLE_DIR, fingerprint));
    for (const file of ['main.mjs', 'worker.mjs', 'complete']) assert.ok(fs.existsSync(path.join(first.dir, file)), file);
    assert.match(fs.readFileSync(path.join(first.dir, 'worker.mjs'), 'utf8'), /import "some-package\/not-installed"/);

    await import(pathToFileURL(path.join(first.dir, 'main.mjs')).href);
    assert.equal((globalThis as Record<string, unknown>).mainRan, 42);

    const again = await ensureServerBundle({ root, fingerprint });
    assert.deepEqual(again, { dir: first.dir, built: false });
    assert.deepEqual(entries(root), [fingerprint]);
  });

  it('is replaced when the sources change, the old one removed', async () => {
    const root = tree('changes');
    const before = sourceFingerprint(root);
    await ensureServerBundle({ root, fingerprint: before });
    fs.writeFileSync(path.join(root, 'server/processes/lib.ts'), 'export const answer: number = 7;\n');
    const after = sourceFingerprint(root);
    assert.notEqual(after, before);
    const rebuilt = await ensureServerBundle({ root, fingerprint: after });
    assert.equal(rebuilt.built, true);
    assert.deepEqual(entries(root), [after]);
  });

  it('comes out whole when several starts compile it at once', async () => {
    const root = tree('concurrent');
    const fingerprint = sourceFingerprint(root);
    const results = await Promise.all([1, 2, 3].map(() => ensureServerBundle({ root, fingerprint })));
    assert.ok(results.every((r) => r.dir === results[0]!.dir));
    assert.ok(results.some((r) => r.built));
    assert.deepEqual(entries(root), [fingerprint], 'no directory in progress is left behind');
    assert.ok(fs.existsSync(path.join(results[0]!.dir, 'complete')));
  });

  it('is not recorded when the sources do not compile, so the next start tries again', async () => {
    const root = tree('broken');
    fs.writeFileSync(path.join(root, 'server/processes/lib.ts'), 'export const answer: number = ;\n');
    const fingerprint = sourceFingerprint(root);
    await assert.rejects(ensureServerBundle({ root, fingerprint }), /Build failed/);
    assert.deepEqual(entries(root), []);
  });

  it('keeps the name of each of our classes as written (logged errors carry it)', async () => {
    const root = process.cwd();
    const { dir } = await ensureServerBundle({ root, fingerprint: sourceFingerprint(root) });
    const read = (d: string, ext: string) =>
      fs
        .readdirSync(d, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith(ext) && !f.includes('node_modules'))
        .map((f) => fs.readFileSync(path.join(d, f), 'utf8'))
        .join('\n');
    const bundled = read(dir, '.mjs');
    const ours = new Set([...`${read('server', '.ts')}\n${read('db', '.ts')}`.matchAll(/^(?:export )?(?:abstract )?class ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!));
    assert.ok(ours.has('ApiError'));
    // esbuild renames a top-level name that collides with another module's (ApiError → ApiError2).
    const kept = (name: string) => new RegExp(`(?:class ${name}\\b|(?:var|let|const) ${name} = class\\b)`).test(bundled);
    const unused = (name: string) => !new RegExp(`\\b${name}\\d*\\b`).test(bundled);
    assert.deepEqual([...ours].filter((name) => !kept(name) && !unused(name)), [], 'classes renamed by the bundler');
  });
});
