import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CHANNELS } from './notify';

// The channels of notify.ts: each payload reads back as written, in the wire text every earlier
// version sent (old and new processes meet during a rolling upgrade), and nothing but notify.ts
// names a channel or calls pg_notify.

const root = path.resolve(import.meta.dirname, '../..');

describe('notification channels', () => {
  it('write the wire text of earlier versions and read it back', () => {
    const events = CHANNELS.executionEvents;
    assert.equal(events.encode({ id: 'exe_01JD8X41B2C3D4E5F6G7H8J9K0', seq: 10_001, final: false }), 'exe_01JD8X41B2C3D4E5F6G7H8J9K0:10001');
    assert.equal(events.encode({ id: 'exe_1', seq: 3, final: true }), 'exe_1:3:final');
    for (const p of [
      { id: 'exe_01JD8X41B2C3D4E5F6G7H8J9K0', seq: 10_001, final: false },
      { id: 'exe_backlog_7', seq: 0, final: true },
    ])
      assert.deepEqual(events.decode(events.encode(p)), p);
    assert.equal(CHANNELS.cancel.encode('exe_1'), 'exe_1');
    assert.equal(CHANNELS.cancel.decode('exe_1'), 'exe_1');
    assert.equal(CHANNELS.follow.decode('exe_1'), 'exe_1');
    assert.equal(CHANNELS.work.encode('executions'), 'executions');
    assert.equal(CHANNELS.work.decode('webhooks'), 'webhooks');
    assert.equal(CHANNELS.outbox.encode(null), '');
    assert.equal(CHANNELS.outbox.decode(''), null);
  });

  it('read nothing from a payload that is not theirs', () => {
    for (const bad of ['', 'exe_1', 'exe_1:x', 'exe_1:1:done', 'exe_1:1:final:more', ':1', 'exe 1:1', 'exe_1:1e400'])
      assert.equal(CHANNELS.executionEvents.decode(bad), undefined, bad);
    for (const bad of ['', 'exe_1:2', 'EXE', '__proto__', 'x'.repeat(200)]) assert.equal(CHANNELS.cancel.decode(bad), undefined, bad);
    for (const bad of ['', 'Executions', 'jobs', '__proto__']) assert.equal(CHANNELS.work.decode(bad), undefined, bad);
    assert.equal(CHANNELS.outbox.decode('x'), undefined);
  });

  it('have distinct names', () => {
    const names = Object.values(CHANNELS).map((c) => c.name);
    assert.equal(new Set(names).size, names.length);
  });

  it('are named, and pg_notify called, nowhere but notify.ts', () => {
    const offenders: string[] = [];
    const names = Object.values(CHANNELS).map((c) => c.name);
    const scan = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) scan(p);
        else if (/\.(ts|tsx|js|mjs)$/.test(entry.name) && !entry.name.includes('.test.') && p !== path.join(root, 'server/platform/notify.ts')) {
          // The code, without its comments (which may name a channel to explain it).
          const source = fs
            .readFileSync(p, 'utf8')
            .replace(/\/\*[\s\S]*?\*\//g, '')
            .replace(/^\s*\/\/.*$/gm, '');
          if (/pg_notify\s*\(/i.test(source)) offenders.push(`${path.relative(root, p)}: pg_notify(`);
          for (const n of names) if (source.includes(`'${n}'`) || source.includes(`"${n}"`) || source.includes(`\`${n}\``)) offenders.push(`${path.relative(root, p)}: '${n}'`);
        }
      }
    };
    for (const dir of ['server', 'app', 'db']) scan(path.join(root, dir));
    assert.deepEqual(offenders, []);
  });
});
