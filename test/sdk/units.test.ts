import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uuid } from '../../sdk/src/core';
import { PagedList } from '../../sdk/src/pagination';
import { parseSse } from '../../sdk/src/stream';

// The typed client's parts that need no server (docs/sdk.md): the SSE parser, the UUID fallback,
// and a list's pages.

const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      controller.close();
    },
  });

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('parseSse', () => {
  it('reads blocks split anywhere, CRLF, CR or LF, comments, multi-line data', async () => {
    const messages = await all(parseSse(body('id: 1\r\nevent: text.delta\r\ndata: {"a":', '1}\r', '\n\r\n: ping\n\nid: 2\ndata: line one\ndata: line two\n\nid:3\rdata:x\r\r')));
    assert.deepEqual(messages, [
      { id: '1', event: 'text.delta', data: '{"a":1}' },
      { id: '2', data: 'line one\nline two' },
      { id: '3', data: 'x' },
    ]);
  });

  it('keeps a character split across chunks whole', async () => {
    const bytes = new TextEncoder().encode('data: “é”\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    assert.deepEqual(await all(parseSse(stream)), [{ data: '“é”' }]);
  });
});

describe('uuid', () => {
  it('is a v4 UUID with or without crypto.randomUUID', () => {
    const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    assert.match(uuid(), V4);
    const original = globalThis.crypto.randomUUID;
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const made = new Set(Array.from({ length: 100 }, uuid));
      assert.equal(made.size, 100);
      for (const u of made) assert.match(u, V4);
    } finally {
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: original, configurable: true });
    }
  });
});

describe('PagedList', () => {
  const pages = (n: number, size: number) => (after: string | undefined) => {
    const start = after ? Number(after) : 0;
    const data = Array.from({ length: Math.min(size, n - start) }, (_, i) => start + i);
    const hasMore = start + data.length < n;
    return Promise.resolve({ data, hasMore, ...(hasMore ? { nextCursor: String(start + data.length) } : {}) });
  };

  it('awaited: the first page; iterated: every item once', async () => {
    const list = new PagedList(pages(7, 3));
    const first = await list;
    assert.deepEqual(first.data, [0, 1, 2]);
    assert.deepEqual((await first.nextPage())!.data, [3, 4, 5]);
    assert.deepEqual(await all(list), [0, 1, 2, 3, 4, 5, 6]);
  });

  it('toArray stops at its limit without asking for another page', async () => {
    let asked = 0;
    const list = new PagedList((after) => (asked++, pages(9, 3)(after)));
    assert.deepEqual(await list.toArray(3), [0, 1, 2]);
    assert.equal(asked, 1);
  });

  it('a first page that failed is asked for again', async () => {
    let calls = 0;
    const list = new PagedList((after) => (++calls === 1 ? Promise.reject(new Error('down')) : pages(2, 5)(after)));
    await assert.rejects(list.firstPage(), /down/);
    assert.deepEqual((await list).data, [0, 1]);
  });
});
