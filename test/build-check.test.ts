import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { buildState, ensureBuild, FINGERPRINT_FILE, nextEnv, runChild, sourceFingerprint } from '../server/processes/build-check';

// `npm start` rebuilds the dashboard when its sources changed since the last build (after a
// `git pull`): the fingerprint follows the content of the sources and nothing else.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-fp-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function tree(name: string): string {
  const root = path.join(tmp, name);
  const files: Record<string, string> = {
    'app/page.tsx': 'export default function Page() { return null; }\n',
    'app/dashboard/layout.tsx': 'export default function L() { return null; }\n',
    'server/processes/main.ts': 'console.log(1);\n',
    'server/platform/pagination.test.ts': 'test\n',
    'db/schema/index.ts': 'export {};\n',
    'next.config.js': 'export default {};\n',
    'package-lock.json': '{}\n',
    'tsconfig.json': '{}\n',
    'README.md': 'not a build source\n',
  };
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
  return root;
}

describe('dashboard build fingerprint', () => {
  it('is the same for the same tree, wherever it lies and whatever the mtimes', () => {
    const a = tree('same-a');
    const b = tree('same-b');
    const before = sourceFingerprint(a);
    assert.match(before, /^[0-9a-f]{64}$/);
    assert.equal(sourceFingerprint(a), before);
    assert.equal(sourceFingerprint(b), before, 'a fresh clone of the same commit');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(a, 'app/page.tsx'), later, later);
    assert.equal(sourceFingerprint(a), before, 'touching a file is no change');
  });

  it('changes when a source file changes, appears, moves or goes', () => {
    const root = tree('changes');
    const seen = new Set([sourceFingerprint(root)]);
    const expectNew = (what: string) => {
      const fp = sourceFingerprint(root);
      assert.ok(!seen.has(fp), what);
      seen.add(fp);
    };
    fs.writeFileSync(path.join(root, 'server/processes/main.ts'), 'console.log(2);\n'); // same size
    expectNew('an edited file');
    fs.writeFileSync(path.join(root, 'app/new.tsx'), '');
    expectNew('a new (even empty) file');
    fs.renameSync(path.join(root, 'app/new.tsx'), path.join(root, 'app/moved.tsx'));
    expectNew('a moved file');
    fs.rmSync(path.join(root, 'app/moved.tsx'));
    fs.writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    expectNew('new dependencies');
    fs.mkdirSync(path.join(root, 'public'));
    fs.writeFileSync(path.join(root, 'public/logo.svg'), '<svg/>');
    expectNew('a new public asset');
  });

  it('ignores what is not built: tests, docs, dot files', () => {
    const root = tree('ignored');
    const before = sourceFingerprint(root);
    fs.writeFileSync(path.join(root, 'server/platform/pagination.test.ts'), 'changed\n');
    fs.writeFileSync(path.join(root, 'README.md'), 'changed\n');
    fs.writeFileSync(path.join(root, 'app/.DS_Store'), 'x');
    assert.equal(sourceFingerprint(root), before);
  });
});

describe('ensureBuild', () => {
  it('builds when there is no build, records the fingerprint, then builds again only after a change', async () => {
    const root = tree('ensure');
    const builds: string[] = [];
    const build = async (dir: string) => {
      builds.push(dir);
      fs.mkdirSync(path.join(dir, '.next'), { recursive: true });
      fs.writeFileSync(path.join(dir, '.next/BUILD_ID'), `build-${builds.length}`);
    };
    assert.equal(buildState(root), 'missing');
    assert.equal(await ensureBuild({ root, build }), 'missing');
    assert.equal(builds.length, 1);
    assert.equal(fs.readFileSync(path.join(root, FINGERPRINT_FILE), 'utf8').trim(), sourceFingerprint(root));
    assert.equal(buildState(root), 'current');

    assert.equal(await ensureBuild({ root, build }), 'current');
    assert.equal(builds.length, 1, 'an up-to-date build is reused');

    fs.appendFileSync(path.join(root, 'app/page.tsx'), '// pulled\n');
    assert.equal(buildState(root), 'changed');
    const reasons: string[] = [];
    assert.equal(await ensureBuild({ root, build, onBuild: (r) => reasons.push(r) }), 'changed');
    assert.deepEqual(reasons, ['changed']);
    assert.equal(builds.length, 2);
    assert.equal(buildState(root), 'current');

    assert.equal(await ensureBuild({ root, build, force: true }), 'forced');
    assert.equal(builds.length, 3, '`npm run build` always builds');
  });

  it('treats a build without a recorded fingerprint (plain `next build`) as stale', () => {
    const root = tree('unrecorded');
    fs.mkdirSync(path.join(root, '.next'));
    fs.writeFileSync(path.join(root, '.next/BUILD_ID'), 'x');
    assert.equal(buildState(root), 'changed');
  });

  it('records nothing when the build fails, so the next start tries again', async () => {
    const root = tree('failing');
    fs.mkdirSync(path.join(root, '.next'));
    fs.writeFileSync(path.join(root, '.next/BUILD_ID'), 'old');
    fs.writeFileSync(path.join(root, FINGERPRINT_FILE), 'old-fingerprint\n');
    const build = () => Promise.reject(new Error('type error'));
    await assert.rejects(ensureBuild({ root, build }), /type error/);
    assert.ok(!fs.existsSync(path.join(root, FINGERPRINT_FILE)));
    assert.equal(buildState(root), 'changed');
  });
});

describe('nextEnv', () => {
  it('turns Next telemetry off unless the user set it', () => {
    assert.equal(nextEnv({ PATH: '/bin' }).NEXT_TELEMETRY_DISABLED, '1');
    assert.equal(nextEnv({ NEXT_TELEMETRY_DISABLED: '0' }).NEXT_TELEMETRY_DISABLED, '0');
  });
});

describe("the dashboard build's output in npm start's log (runChild with a log)", () => {
  // A stand-in for `next build`: colours, a blank line, warnings and errors on stderr.
  const script = (exitCode: number) => `
    console.log('\\x1b[1m\\x1b[32m✓\\x1b[39m\\x1b[22m Compiled successfully');
    console.log('');
    console.warn(' ⚠ a warning');
    console.error('Type error: Property x does not exist');
    console.log('Route (app)  Size');
    process.exit(${exitCode});`;
  const collect = () => {
    const lines: { level: string; fields: object; msg: string }[] = [];
    const at = (level: string) => (fields: object, msg: string) => void lines.push({ level, fields, msg });
    return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
  };
  const run = (exitCode: number, log: ReturnType<typeof collect>['log']) =>
    runChild(process.execPath, ['-e', script(exitCode)], { cwd: tmp, env: process.env, log, source: 'next build' });

  it('logs each line as a JSON line of its own (no colours, no blank lines): stdout at info, stderr at warn', async () => {
    const { lines, log } = collect();
    await run(0, log);
    const info = lines.filter((l) => l.level === 'info').map((l) => l.msg);
    assert.deepEqual(info, ['✓ Compiled successfully', 'Route (app)  Size']);
    assert.deepEqual(lines.filter((l) => l.level === 'warn').map((l) => l.msg), [' ⚠ a warning', 'Type error: Property x does not exist']);
    for (const l of lines) assert.equal((l.fields as { source: string }).source, 'next build');
  });

  it('a failed build: its errors logged once more at error, and the error names where to look', async () => {
    const { lines, log } = collect();
    await assert.rejects(run(1, log), /The dashboard build failed \(next build exited with 1\); see the lines logged with "source":"next build"/);
    const failure = lines.find((l) => l.level === 'error')!;
    assert.equal(failure.msg, 'next build failed: the last lines of its errors');
    assert.deepEqual((failure.fields as { stderr: string[] }).stderr, [' ⚠ a warning', 'Type error: Property x does not exist']);
  });
});
