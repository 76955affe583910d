import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { closeAfterResponse, LINGER, MAX_BODY_BYTES } from './exchange';

// How much of a refused upload the server reads: at most LINGER.maxBytes after the refusal,
// counted on the server's own socket (a client's count includes the kernels' buffers).

describe('a refused upload that never ends', () => {
  let server: http.Server;
  let port = 0;
  const closed: Promise<number>[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      const socket = req.socket as Socket;
      closed.push(new Promise((resolve) => socket.once('close', () => resolve(socket.bytesRead))));
      closeAfterResponse(req, res);
      res.statusCode = 413;
      res.end('too large');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is read up to the cap, then cut, while the client still gets the answer', async () => {
    const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    client.on('data', (c: Buffer) => (text += c.toString()));
    client.on('error', () => {});
    const ended = new Promise((resolve) => client.once('close', resolve));
    client.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000000\r\n\r\n');
    const chunk = Buffer.alloc(64 * 1024, 120);
    const started = Date.now();
    while (!client.destroyed && Date.now() - started < 10_000) {
      if (!client.write(chunk)) await new Promise((r) => client.once('drain', r).once('close', r));
    }
    await ended;
    const read = await closed[0]!;
    assert.match(text, /^HTTP\/1\.1 413/);
    assert.ok(read <= LINGER.maxBytes + MAX_BODY_BYTES, `the server read ${read} bytes`);
    assert.ok(Date.now() - started < LINGER.maxMs, 'cut by the byte cap, not the time limit');
  });
});
