import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors';
import { newId } from '../ids';
import { log } from '../log';
import { Counts } from '../counts';
import { addressKey } from './client-address';
import { lingerThenDestroy, rawAnswer } from './client-error';

// Connections per client address (docs/security.md, "Connections per address"). A process
// accepts a fixed number of connections (MAX_CONNECTIONS); without a share per address, one
// address holding them all — half-sent requests, reconnected as soon as they are closed — locked
// every other client out. Counted when the connection is accepted, on the socket's peer (IPv6 by
// /64, IPv4-mapped IPv6 as IPv4: addressKey), before Node's HTTP parser sees a byte, and given
// back when it closes. A trusted proxy's connections are not counted: every client behind it
// shares its address (the proxy limits its own clients).
//
// Over the cap, the connection is answered `429 rate_limit_exceeded` in our envelope, with
// `Retry-After: 1` and `Connection: close`, and closed: a legitimate client (a busy office behind
// one address) learns why, instead of reading a reset. The answer is written at once, whatever
// the client sends (nothing of it is parsed), and the connection is kept for at most
// REFUSAL_LINGER_MS for the client to read it; at most ANSWERED_AT_ONCE refused connections of
// one address are kept so, further ones are closed unanswered: refusing must not itself hold the
// process's connections.

/** Connections one process accepts at once; Node accepts and closes at once any beyond. */
export const MAX_CONNECTIONS = 2_048;
/** Refused connections of one address being answered at once; beyond them, closed unanswered. */
export const ANSWERED_AT_ONCE = 8;
/** How long a refused connection is kept for its client to read the answer (unless it closes first). */
export const REFUSAL_LINGER_MS = 1_000;

/**
 * Caps `server`'s connections per client address at `max` (0: no cap), except for peers
 * `exempt` says are proxies. Sets the process-wide MAX_CONNECTIONS too.
 */
export function capConnections(server: Server, opts: { max: number; exempt(peer: string): boolean }): void {
  server.maxConnections = MAX_CONNECTIONS;
  reportDrops(server, (dropped) => log.warn({ dropped, max: MAX_CONNECTIONS }, 'connections closed unanswered: this process holds the most it accepts at once'));
  const open = new Counts();
  const refusing = new Counts();
  const warned = new Map<string, number>();
  if (opts.max <= 0) return;

  // The HTTP server's own 'connection' listener (its parser) runs only for admitted sockets.
  const handlers = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (!peer) return void socket.destroy();
    if (!opts.exempt(peer)) {
      const key = addressKey(peer);
      if (open.get(key) >= opts.max) return refuse(socket, key);
      open.add(key);
      socket.once('close', () => open.remove(key));
    }
    for (const handler of handlers) handler.call(server, socket);
  });

  function refuse(socket: Socket, key: string): void {
    socket.on('error', () => {});
    if (refusing.get(key) >= ANSWERED_AT_ONCE) return void socket.destroy();
    refusing.add(key);
    socket.once('close', () => refusing.remove(key));
    const requestId = newId('req');
    const error = new ApiError(
      'rate_limit_exceeded',
      `Too many connections from this address: at most ${opts.max} at once; close some (or reuse them: keep-alive) and retry`,
    );
    // Whatever the client sends is read and dropped, so that closing sends no reset over the answer.
    socket.resume();
    socket.end(rawAnswer(error, requestId, { 'Retry-After': '1' }));
    lingerThenDestroy(socket, REFUSAL_LINGER_MS);
    // One line per address a minute, not one per refused connection.
    const now = Date.now();
    if ((warned.get(key) ?? 0) < now - 60_000) {
      if (warned.size >= 10_000) warned.clear();
      warned.set(key, now);
      log.warn({ requestId, address: key, max: opts.max }, 'connection refused: too many open from this address');
    }
  }
}

/**
 * Past `server.maxConnections` Node closes each new connection at once, unanswered (its client
 * reads a reset or "other side closed"), and says nothing but a 'drop' event: `warn` says so, at
 * most once every `everyMs`, with how many were dropped since it last did.
 */
export function reportDrops(server: Server, warn: (dropped: number) => void, everyMs = 60_000): void {
  let dropped = 0;
  let warnedAt = -Infinity;
  server.on('drop', () => {
    dropped++;
    const now = performance.now();
    if (now - warnedAt < everyMs) return;
    warnedAt = now;
    warn(dropped);
    dropped = 0;
  });
}
