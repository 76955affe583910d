import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireDataDirLock, DataDirLockedError } from './lock';

// One process owns a data dir (PGlite has no lock of its own). `npm start` takes the lock before
// it listens and the database takes it again when it opens (server/processes/main.ts): within
// one process the lock is counted, and the file goes with the last release.

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-lock-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const lockOf = (dir: string) => path.join(dir, 'owner.lock');

describe('the data dir lock', () => {
  it('may be taken again by its owner; the file goes when every holder has released it', () => {
    const dir = fs.mkdtempSync(path.join(root, 'twice-'));
    const first = acquireDataDirLock(dir);
    const second = acquireDataDirLock(dir);
    assert.equal(fs.readFileSync(lockOf(dir), 'utf8'), String(process.pid));
    first();
    first(); // a release counts once
    assert.ok(fs.existsSync(lockOf(dir)), 'still held by the second');
    second();
    assert.ok(!fs.existsSync(lockOf(dir)));
  });

  it("refuses another live process's lock, and one just created whose pid is not written yet", () => {
    const dir = fs.mkdtempSync(path.join(root, 'other-'));
    fs.writeFileSync(lockOf(dir), '1'); // pid 1 is always alive
    assert.throws(() => acquireDataDirLock(dir), (err) => err instanceof DataDirLockedError && /in use by another process \(pid 1\)/.test(err.message));
    fs.writeFileSync(lockOf(dir), '');
    assert.throws(() => acquireDataDirLock(dir), /in use by another process \(one starting at the same moment\)/);
  });

  it('takes over the lock of a process that died, and an empty one left long ago', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'stale-'));
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.once('exit', resolve));
    fs.writeFileSync(lockOf(dir), String(dead.pid));
    acquireDataDirLock(dir)();
    fs.writeFileSync(lockOf(dir), '');
    const longAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(lockOf(dir), longAgo, longAgo);
    const release = acquireDataDirLock(dir);
    assert.equal(fs.readFileSync(lockOf(dir), 'utf8'), String(process.pid));
    release();
  });
});
