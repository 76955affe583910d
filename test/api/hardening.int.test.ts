// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';

// Attacks on the custom server, each as it was reproduced: odd query parameter names, huge or
// deep bodies on every route (the dashboard face included, with a stand-in for Next behind the
// server), slow uploads, spoofed client addresses, and what responses may be cached or framed.

/** What the stand-in for Next saw: the body it read and the client address header. */
const seenByNext: { body: string; address: string | undefined }[] = [];
function fakeNext(req: IncomingMessage, res: ServerResponse) {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seenByNext.push({ body, address: req.headers['x-aas-client-address'] as string | undefined });
    res.setHeader('Content-Type', 'text/html');
    res.end('<html>page</html>');
  });
}

let api: TestServer;
let admin: SeededKey;
before(async () => {
  api = await startServer({ next: fakeNext });
  admin = await api.seed.key({ name: 'admin', ...UNLIMITED });
});
after(() => api?.close());

/**
 * Sends the head of a request and `sent` bytes of a body that claims to be `declared` bytes
 * long, never the rest; resolves with the status line, and with how the connection ended.
 */
function partialUpload(path: string, headers: Record<string, string>, declared: number, sent: number) {
  return new Promise<{ status: number; closedByServer: boolean; ms: number }>((resolve, reject) => {
    const url = new URL(api.url);
    const socket = net.connect(Number(url.port), url.hostname);
    const started = Date.now();
    let text = '';
    socket.on('connect', () => {
      const head = Object.entries({ host: url.host, 'content-length': String(declared), ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      socket.write('x'.repeat(sent));
    });
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), closedByServer: true, ms: Date.now() - started }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open: ${text.slice(0, 200)}`));
    }, 8_000).unref();
  });
}

describe('query parameters named like object properties', () => {
  it('are unknown_parameter (400), never a 500', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const res = await api.request('GET', `/v1/keys?${name}=1`, { key: admin.key });
      expectError(res, 400, 'unknown_parameter', name);
      const nested = await api.request('GET', `/v1/keys?${name}[x]=1&limit=2`, { key: admin.key });
      expectError(nested, 400, 'unknown_parameter');
    }
  });

  it('repeated parameters are an invalid value, not a crash', async () => {
    const res = await api.request('GET', '/v1/keys?limit=1&limit=2', { key: admin.key });
    expectError(res, 400, 'invalid_parameter', 'limit');
  });
});

describe('caching and framing', () => {
  it('/v1 and /api answers are no-store; every answer forbids framing and sniffing', async () => {
    const responses = [
      await api.request('GET', '/v1/keys', { key: admin.key }),
      await api.request('GET', '/v1/keys'),
      await api.request('GET', '/v1/openapi.json'),
      await api.request('GET', '/api/auth/session'),
    ];
    for (const r of responses) {
      assert.equal(r.headers.get('cache-control'), 'no-store', r.text.slice(0, 100));
    }
    for (const r of [...responses, await api.request('GET', '/signin')]) {
      assert.equal(r.headers.get('x-frame-options'), 'DENY');
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.match(r.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(r.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');
    }
  });
});

describe('bodies the server will not read', () => {
  it('a keyless POST announcing 50 MB is answered 401 and the connection closed, not drained', async () => {
    const r = await partialUpload('/v1/keys', { 'content-type': 'application/json' }, 50 * 1024 * 1024, 64 * 1024);
    assert.equal(r.status, 401);
    assert.ok(r.closedByServer && r.ms < 5_000, `${r.ms} ms`);
  });

  it('a keyed POST announcing more than 1 MiB is answered 413 and the connection closed', async () => {
    const headers = { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' };
    const declared = await partialUpload('/v1/keys', headers, 2 * 1024 * 1024, 1024);
    assert.equal(declared.status, 413);
    assert.ok(declared.closedByServer && declared.ms < 5_000, `${declared.ms} ms`);
  });

  it('the dashboard face: over 1 MiB is 413 before Next sees it, whether declared or streamed', async () => {
    const before0 = seenByNext.length;
    const declared = await partialUpload('/api/trpc/account.signUp', { 'content-type': 'application/json' }, 40 * 1024 * 1024, 1024);
    assert.equal(declared.status, 413);
    const streamed = await fetch(`${api.url}/api/trpc/account.signUp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 24; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit).then((r) => r.status, () => 413);
    assert.equal(streamed, 413);
    assert.equal(seenByNext.length, before0, 'Next never saw the oversized bodies');
  });

  it('the dashboard face: JSON nested deeper than 32 levels is 400 invalid_json before Next sees it', async () => {
    const before0 = seenByNext.length;
    const deep = `{"0":{"json":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const res = await api.request('POST', '/api/trpc/account.signUp', { rawBody: deep, headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'invalid_json');
    assert.equal(seenByNext.length, before0);
    const fine = await api.request('POST', '/api/auth/callback/credentials', {
      rawBody: 'email=a%40b.c&password=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(fine.status, 200);
    assert.equal(seenByNext.at(-1)?.body, 'email=a%40b.c&password=x', 'a body within the limits reaches Next whole');
  });

  it('the dashboard face gets the client address from the socket, never from the client', async () => {
    await api.request('GET', '/signin', { headers: { 'x-aas-client-address': '6.6.6.6', 'x-forwarded-for': '7.7.7.7' } });
    assert.equal(seenByNext.at(-1)?.address, '127.0.0.1');
  });
});

/** Sends a whole request (head, then `size` body bytes in 64 KB chunks `pauseMs` apart) and reads only once it is all sent. */
function uploadThenRead(path: string, headers: Record<string, string>, size: number, pauseMs: number) {
  return new Promise<{ status: number; body: string }>((resolve) => {
    const url = new URL(api.url);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.pause();
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
    socket.on('connect', async () => {
      const head = Object.entries({ host: url.host, 'content-length': String(size), ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      for (let sent = 0; sent < size && !socket.destroyed; sent += 64 * 1024) {
        socket.write(Buffer.alloc(Math.min(64 * 1024, size - sent), 120));
        await new Promise((r) => setTimeout(r, pauseMs));
      }
      socket.resume();
    });
  });
}

/**
 * Uploads a body that does not end — chunked without end, or `declared` bytes long — each chunk
 * once the last was taken (and `pauseMs` apart), and keeps sending after the server's FIN (a
 * half-open client); resolves when the server closes, with what was sent and how long it took.
 */
function endlessUpload(path: string, headers: Record<string, string>, pauseMs: number, declared?: number) {
  return new Promise<{ status: number; sent: number; ms: number }>((resolve) => {
    const url = new URL(api.url);
    const socket = net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    const started = Date.now();
    const data = Buffer.alloc(0x10000, 120);
    const chunk = declared ? data : Buffer.concat([Buffer.from('10000\r\n'), data, Buffer.from('\r\n')]);
    let sent = 0;
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), sent, ms: Date.now() - started }));
    socket.on('connect', async () => {
      const length = declared ? { 'content-length': String(declared) } : { 'transfer-encoding': 'chunked' };
      const head = Object.entries({ host: url.host, ...length, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      while (!socket.destroyed && Date.now() - started < 20_000 && (!declared || sent < declared)) {
        sent += chunk.length;
        if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r).once('close', r));
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

describe('refused uploads get their answer, but are never read without bound', () => {
  const json = { 'content-type': 'application/json' };
  const targets = () => [
    { path: '/v1/keys', headers: { ...json, authorization: `Bearer ${admin.key}` } },
    { path: '/api/trpc/keys.create', headers: json },
  ];

  it('every one of 20 fetches with a 2 MB body gets the 413 envelope, on /v1 and on /api/trpc', async () => {
    const twoMb = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
    /** The same 2 MB streamed (no length announced), the second half a little slower. */
    const streamed = () => {
      let n = 0;
      return new ReadableStream({
        async pull(c) {
          if (n++ === 32) return c.close();
          if (n > 16) await new Promise((r) => setTimeout(r, 2));
          c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        },
      });
    };
    for (const { path, headers } of targets()) {
      for (const body of [() => twoMb, streamed]) {
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            fetch(api.url + path, { method: 'POST', headers, body: body(), duplex: 'half' } as RequestInit).then(
              async (r) => `${r.status} ${((await r.json()) as { error: { code: string } }).error.code}`,
              (err: Error) => `reset: ${String((err.cause as { code?: string } | undefined)?.code ?? err.message)}`,
            ),
          ),
        );
        assert.deepEqual(results, Array(20).fill('413 request_too_large'), path);
      }
    }
  });

  it('a client that reads only once it has sent its whole 2 MB body still gets the 413 (no reset)', async () => {
    for (const { path, headers } of targets()) {
      for (let i = 0; i < 3; i++) {
        const r = await uploadThenRead(path, headers, 2 * 1024 * 1024, 2);
        assert.equal(r.status, 413, `${path}: the connection was reset before the answer could be read`);
        assert.match(r.body, /"code":"request_too_large"/);
      }
    }
  });

  it('an endless upload is cut off: at most a few MiB discarded after the answer, or 5 s of a trickle', async () => {
    const [v1, trpc, declared, trickle] = await Promise.all([
      endlessUpload('/v1/keys', targets()[0]!.headers, 0),
      endlessUpload('/api/trpc/keys.create', json, 0),
      endlessUpload('/api/trpc/keys.create', json, 0, 50 * 1024 * 1024),
      endlessUpload('/v1/keys', targets()[0]!.headers, 100),
    ]);
    for (const r of [v1, trpc, declared]) {
      assert.equal(r.status, 413);
      // Cut by the byte cap (1 MiB read, at most 4 MiB discarded: server/platform/http/exchange.test.ts),
      // not the 5 s limit; the client could send that plus what the kernels' buffers hold.
      assert.ok(r.sent < 64 * 1024 * 1024 && r.ms < 2_000, `${r.sent} bytes sent, closed after ${r.ms} ms`);
    }
    assert.equal(trickle.status, 413);
    assert.ok(trickle.ms >= 4_000 && trickle.ms < 8_000, `the trickle was closed after ${trickle.ms} ms`);
  });
});

describe('slow clients', () => {
  it('must send their headers within 10 s and the whole request within 30 s', async () => {
    const { SERVER_TIMEOUTS } = await import('../../server/api/http/server');
    assert.ok(SERVER_TIMEOUTS.headersTimeout <= 10_000 && SERVER_TIMEOUTS.requestTimeout <= 30_000);
  });
});

describe('expiresAt', () => {
  it('beyond 10 years, past year 9999 or with an impossible offset is invalid_parameter, nothing written', async () => {
    for (const expiresAt of ['+275760-09-13T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2030-01-01T00:00:00+99:99', '2030-02-30T00:00:00Z']) {
      const res = await api.request('POST', '/v1/keys', { key: admin.key, body: { name: 'far', expiresAt } });
      expectError(res, 400, 'invalid_parameter', 'expiresAt');
    }
    const inYears = new Date(Date.now() + 9 * 365 * 86_400_000).toISOString();
    expectStatus(await api.request('POST', '/v1/keys', { key: admin.key, body: { name: 'near', expiresAt: inYears } }), 201);
  });
});
