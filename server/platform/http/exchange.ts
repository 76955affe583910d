import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// What every route of the custom server shares: the body limit, the closing of a connection
// whose body we refuse to read, and the headers every response carries.

/**
 * How long a client may take (node:http's server options): the headers of a request within 5 s
 * of its first byte — or, on a fresh connection, of the connection — and the whole request within
 * 30 s; an idle keep-alive connection is closed after 5 s. Node checks the first two only every
 * `connectionsCheckingInterval` (30 s by default, so a half-sent request held its connection for
 * 10–40 s): every second here, which cost 0.3–4 ms of CPU a second with 2,000 connections open
 * (docs/security.md, "Slow clients"). Responses (event streams, waits) are not limited.
 */
export const SERVER_TIMEOUTS = { headersTimeout: 5_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 };

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_BODY_DEPTH = 32;
/**
 * What a refused upload may still send after our answer, so that the client gets to read the
 * answer: it is read and discarded up to `maxBytes`, for at most `maxMs`, and while it keeps
 * coming (`idleMs` without a byte ends it). Then the connection is closed, whatever is left.
 */
export const LINGER = { maxBytes: 4 * MAX_BODY_BYTES, maxMs: 5_000, idleMs: 1_000 };

/** Whether the request announces a body (a length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Ends the connection after this response instead of reading the rest of the request body
 * (Node would otherwise read and discard all of it to keep the connection alive): the answer
 * goes out with `Connection: close`; what the client still sends is discarded as it comes, then
 * the connection closes (see `linger`).
 */
export function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  res.shouldKeepAlive = false;
  if (!res.headersSent) res.setHeader('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon(): void };
  // Discarded from now on, and counted: past LINGER.maxBytes the connection is cut. (Reading it
  // ourselves also keeps Node from dumping the body unseen when the answer is written.)
  const state = { discarded: 0, lastData: Date.now(), over: false, close: () => {} };
  req.on('data', (chunk: Buffer) => {
    state.discarded += chunk.length;
    state.lastData = Date.now();
    if (state.discarded > LINGER.maxBytes && !state.over) {
      state.over = true;
      req.pause();
      state.close();
    }
  });
  req.resume();
  // Node ends and destroys a `Connection: close` socket through destroySoon as soon as the
  // answer is written. Destroyed while the client is still uploading, its unread bytes make the
  // kernel send a reset, which often reaches the client before it has read the answer (2–5 of
  // 20 fetches of a 2 MB body to /v1, 9–11 of 20 to /api/trpc). This socket lingers instead.
  socket.destroySoon = () => linger(req, socket, state);
}

/**
 * A lingering close: half-close after the answer (our FIN follows it, so the client reads it
 * whole), keep discarding what the client still sends, and destroy the socket once the client
 * is done — its body has ended or it closed its side — or once LINGER's bytes, time or idleness
 * run out.
 */
function linger(req: IncomingMessage, socket: Socket, state: { lastData: number; over: boolean; close: () => void }): void {
  socket.end();
  const started = Date.now();
  let closing = false;
  // Destroyed only once our answer (and FIN) has gone out; never later than LINGER.maxMs + 1 s.
  const close = () => {
    if (closing) return;
    closing = true;
    clearInterval(timer);
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  state.close = close;
  const timer = setInterval(() => {
    const now = Date.now();
    if (now - started > LINGER.maxMs || now - state.lastData > LINGER.idleMs) close();
  }, 50);
  timer.unref();
  setTimeout(() => socket.destroy(), LINGER.maxMs + 1_000).unref();
  socket.once('close', () => clearInterval(timer));
  if (state.over || req.complete) return close();
  req.once('end', close);
  socket.once('end', close);
}

type Push = (chunk: unknown, encoding?: BufferEncoding) => boolean;

/**
 * Holds back a request's body until all of it has arrived, counting it as it comes: past
 * `maxBytes` it rejects with 'too_large' (the rest then reaches `req` as usual, for the refusal
 * to discard: closeAfterResponse), otherwise it resolves with the
 * body and hands the same bytes on to whoever reads `req` next (Next.js), which therefore only
 * ever sees a complete body within the limit.
 *
 * It intercepts `req.push`, through which Node's HTTP parser delivers the body, so it must be
 * called in the same tick as the 'request' event, before anything reads the request.
 */
export function holdBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<Buffer> {
  const original = req.push.bind(req) as Push;
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    const stop = (reason: string) => {
      // The rest goes to whoever reads `req` now: closeAfterResponse discards and counts it.
      (req as { push: Push }).push = original;
      reject(new Error(reason));
    };
    (req as { push: Push }).push = (chunk, encoding) => {
      if (chunk === null) {
        (req as { push: Push }).push = original;
        for (const c of chunks) original(c);
        original(null);
        resolve(Buffer.concat(chunks, size));
        return false;
      }
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding);
      size += buf.length;
      if (size > maxBytes) {
        stop('too_large');
        return true;
      }
      chunks.push(buf);
      return true;
    };
    req.once('aborted', () => stop('aborted'));
    req.once('error', () => stop('aborted'));
  });
}

/**
 * How deeply objects and arrays nest in a JSON text, without parsing it (so a body nested
 * 500,000 levels deep costs one linear scan, not a stack overflow in whoever walks it later).
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) max = Math.max(max, ++depth);
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return max;
}

/** Headers on every response: no framing, no sniffing, no referrer leaking paths elsewhere. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
  'Referrer-Policy': 'strict-origin-when-cross-origin',
};

export function setSecurityHeaders(res: ServerResponse, noStore: boolean): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  // API answers hold keys, ids and account data: never kept by a browser or a shared cache.
  if (noStore) res.setHeader('Cache-Control', 'no-store');
}
