import assert from 'node:assert/strict';
import path from 'node:path';
import { it } from 'node:test';
import { pathToFileURL } from 'node:url';

// postgres.js 3.4.9 keeps its pool's queues in arrays that drop taken entries only when the queue
// empties: under steady load (a busy pool never empties) a queue grew by one hole per query, and
// every remove() scanned them all — a pool's throughput fell ~4x within 12 s (docs/platform-notes.md,
// "postgres.js's pool under steady load"). patches/postgres+3.4.9.patch compacts the queue; this
// fails when an install did not apply it (`npm ci` runs patch-package).

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

const load = async (file: string) =>
  ((await import(pathToFileURL(path.resolve('node_modules/postgres', file)).href)) as { default: <T>() => Queue<T> }).default;

for (const file of ['src/queue.js', 'cjs/src/queue.js']) {
  it(`a queue that never empties stays fast (${file})`, async () => {
    const Queue = await load(file);
    const q = Queue<object>();
    q.push({});
    for (let i = 0; i < 500_000; i++) {
      q.push({});
      q.shift();
    }
    assert.equal(q.length, 1);
    const missing = {};
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) assert.equal(q.remove(missing), null);
    const ms = performance.now() - started;
    // Unpatched: each remove() scans 500,000 holes (~1.2 s in all here); patched: ~1,000 at most (~3 ms).
    assert.ok(ms < 300, `10,000 removes took ${ms.toFixed(0)} ms`);
    // Order and removal still behave as a queue.
    const [a, b, c] = [{}, {}, {}];
    const r = Queue<object>();
    r.push(a);
    r.push(b);
    r.push(c);
    assert.equal(r.remove(b), b);
    assert.equal(r.shift(), a);
    assert.equal(r.shift(), c);
    assert.equal(r.length, 0);
  });
}
