import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';

// The refusals' log lines are not this test's output (env.js reads the level once, at import).
process.env.LOG_LEVEL ??= 'silent';
const { ANSWERED_AT_ONCE, capConnections, reportDrops } = await import('./connections');

// The cap on a bare node:http server (test/api/connections.int.test.ts runs it in the real
// server): counted per address, released on close, exempt peers uncounted, and refusals that
// cannot pile up.

const servers: http.Server[] = [];
const sockets: net.Socket[] = [];
after(() => {
  for (const s of sockets) s.destroy();
  for (const s of servers) s.close();
});

async function serve(max: number, exempt: (peer: string) => boolean = () => false): Promise<number> {
  const server = http.createServer((_req, res) => res.end('ok'));
  capConnections(server, { max, exempt });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** A connection from `local` that sends nothing and never closes its side; `first`: what the server sent first ('' if it closed). */
function connect(port: number, local: string) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: local, allowHalfOpen: true });
  sockets.push(socket);
  socket.on('error', () => {});
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const first = new Promise<string>((resolve) => {
    socket.once('data', (c: Buffer) => resolve(c.toString('latin1')));
    // Closed by the server: its FIN ('end'; our side stays open) without a byte before it.
    socket.once('end', () => resolve(''));
    socket.once('close', () => resolve(''));
  });
  return { socket, connected, first };
}

const get = (port: number, local: string) =>
  new Promise<number>((resolve, reject) => {
    http.get({ port, host: '127.0.0.1', localAddress: local, agent: false, path: '/' }, (res) => resolve(res.statusCode ?? 0)).on('error', reject);
  });

describe('capConnections', () => {
  let port = 0;
  before(async () => {
    port = await serve(2, (peer) => peer === '127.0.0.9');
  });

  it('refuses the connection past the cap with a 429, counts each address apart, and frees a place on close', async () => {
    const held = [connect(port, '127.0.0.2'), connect(port, '127.0.0.2')];
    await Promise.all(held.map((c) => c.connected));
    const refused = connect(port, '127.0.0.2');
    assert.match(await refused.first, /^HTTP\/1\.1 429 Too Many Requests\r\n[^]*Retry-After: 1\r\n[^]*"code":"rate_limit_exceeded"/);
    assert.equal(await get(port, '127.0.0.3'), 200);
    held[0]!.socket.destroy();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      status = await get(port, '127.0.0.2');
    }
    assert.equal(status, 200);
  });

  it(`answers at most ${ANSWERED_AT_ONCE} refused connections of an address at once; the rest are closed unanswered`, async () => {
    const held = [connect(port, '127.0.0.4'), connect(port, '127.0.0.4')];
    await Promise.all(held.map((c) => c.connected));
    // Clients that keep their side open: each answered refusal lingers, so the burst exhausts them.
    const burst = Array.from({ length: 3 * ANSWERED_AT_ONCE }, () => connect(port, '127.0.0.4'));
    const firsts = await Promise.all(burst.map((c) => c.first));
    assert.equal(firsts.filter((f) => f.startsWith('HTTP/1.1 429')).length, ANSWERED_AT_ONCE);
    assert.equal(firsts.filter((f) => f === '').length, 2 * ANSWERED_AT_ONCE);
  });

  it('does not count exempt peers (trusted proxies), and counts nothing with a cap of 0', async () => {
    const proxied = Array.from({ length: 10 }, () => connect(port, '127.0.0.9'));
    await Promise.all(proxied.map((c) => c.connected));
    assert.equal(await get(port, '127.0.0.9'), 200);
    const open = await serve(0);
    const many = Array.from({ length: 10 }, () => connect(open, '127.0.0.5'));
    await Promise.all(many.map((c) => c.connected));
    assert.equal(await get(open, '127.0.0.5'), 200);
  });
});

describe('reportDrops', () => {
  it('says when the process closed connections past its maximum unanswered: the first at once, then how many since, once per interval', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    servers.push(server);
    server.maxConnections = 1;
    const said: number[] = [];
    reportDrops(server, (dropped) => said.push(dropped), 200);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const held = connect(port, '127.0.0.1');
    await held.connected;
    await new Promise((r) => setTimeout(r, 50)); // accepted: it holds the one place
    const over = Array.from({ length: 3 }, () => connect(port, '127.0.0.1'));
    assert.deepEqual(await Promise.all(over.map((c) => c.first)), ['', '', '']);
    assert.deepEqual(said, [1]);
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(await connect(port, '127.0.0.1').first, '');
    assert.deepEqual(said, [1, 3]);
  });
});
