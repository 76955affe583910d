// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { supported, unsupportedMessage } from '../server/processes/node-version.js';
import { ROOT } from './processes';

// On a Node older than 22.19 (undici's own minimum) every entry point says plainly what it needs and exits 1, before
// any dependency loads (on Node 20, `npm start` used to crash inside undici with no word about
// the version). Run for real with the machine's own old node (/usr/bin/node, v20 here) — the
// one people get from their distribution; the tests run on Node 24 from .cache/node.

const OLD_NODE = process.env.TEST_OLD_NODE ?? '/usr/bin/node';
const oldVersion = (() => {
  try {
    return execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
})();
const skip = oldVersion === null ? `no ${OLD_NODE}` : supported(oldVersion) ? `${OLD_NODE} is ${oldVersion}, not older than 22.19` : false;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-node-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * Runs `command` with the old node first on PATH (so npm and its scripts run on it). Killed
 * after 30 s: a watcher (`npm run dev`) that outlives its crashed child never exits by itself.
 */
function runOld(command: string, args: string[], dataDir: string, cwd = ROOT): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.dirname(OLD_NODE)}:${process.env.PATH}`, DATA_DIR: dataDir, PORT: '0' };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    // Its own process group, so the timeout ends npm and whatever it started.
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('the Node.js version check', () => {
  it('accepts 22.19 and later, refuses older', () => {
    for (const v of ['22.19.0', 'v22.20.1', '23.0.0', '24.21.0', '30.1.2']) assert.equal(supported(v), true, v);
    for (const v of ['22.18.0', 'v22.12.0', 'v20.20.2', '18.20.4', '16.0.0', '']) assert.equal(supported(v), false, v);
    const message = unsupportedMessage('20.20.2', '/usr/bin/node');
    assert.match(message, />= 22\.19/);
    assert.match(message, /Node 24 LTS recommended/);
    assert.match(message, /this is Node 20\.20\.2 \(\/usr\/bin\/node\)/);
    assert.match(message, /https:\/\/nodejs\.org/);
  });

  const entryPoints: [string, string, string[]][] = [
    ['npm start', 'npm', ['start']],
    ['npm run dev', 'npm', ['run', 'dev']],
    ['npm run worker', 'npm', ['run', 'worker']],
    ['npm run db:migrate', 'npm', ['run', 'db:migrate']],
    ['the admin CLI', 'npm', ['run', 'admin', '--', 'create-user', '--email', 'old@example.test', '--password', 'password123']],
    ['npm run build', 'npm', ['run', 'build']],
    ['npm test', 'npm', ['test']],
    ['npm run test:e2e', 'npm', ['run', 'test:e2e']],
    ['npm run bench', 'npm', ['run', 'bench']],
    ['npm run lint', 'npm', ['run', 'lint']],
    ['npm run typecheck', 'npm', ['run', 'typecheck']],
    ['node --import tsx server/processes/main.ts', OLD_NODE, ['--import', 'tsx', 'server/processes/main.ts']],
  ];
  for (const [label, command, args] of entryPoints) {
    it(`${label} on an old Node says what it needs and exits 1, touching nothing`, { skip }, async () => {
      const dataDir = path.join(tmp, label.replace(/\W+/g, '-'));
      const { code, out } = await runOld(command, args, dataDir);
      assert.equal(code, 1, out);
      assert.ok(out.includes(unsupportedMessage(oldVersion!, OLD_NODE)), out);
      assert.doesNotMatch(out, /\n\s+at /, 'no stack trace');
      assert.doesNotMatch(out, /undici|TypeError/);
      assert.ok(!fs.existsSync(dataDir), 'nothing was opened or created');
    });
  }

  // `npm ci` is npm's own command: `engine-strict=true` in .npmrc makes it refuse this project on
  // an old Node before it installs or removes anything (it used to finish with 44 warnings).
  it('npm ci on an old Node refuses before touching node_modules', { skip }, async () => {
    const project = path.join(tmp, 'npm-ci');
    fs.mkdirSync(path.join(project, 'node_modules', 'kept'), { recursive: true });
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) fs.copyFileSync(path.join(ROOT, file), path.join(project, file));
    const { code, out } = await runOld('npm', ['ci', '--ignore-scripts'], path.join(tmp, 'npm-ci-data'), project);
    assert.notEqual(code, 0, out);
    assert.match(out, /EBADENGINE/);
    assert.match(out, /Required: \{"node":">=22\.19"\}/);
    assert.ok(fs.existsSync(path.join(project, 'node_modules', 'kept')), 'node_modules untouched');
  });
});
