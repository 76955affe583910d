import type { IncomingMessage, ServerResponse } from 'node:http';

// What every route of the custom server shares: the body limit, the closing of a connection
// whose body we refuse to read, and the headers every response carries.

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_BODY_DEPTH = 32;
/** How long a refused upload may keep sending after our answer, so the client can read it. */
const LINGER_MS = 1_000;

/** Whether the request announces a body (a length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Ends the connection after this response instead of reading the rest of the request body
 * (Node would otherwise read and discard all of it to keep the connection alive): the answer
 * goes out with `Connection: close`, the client gets a moment to read it (what it still sends
 * meanwhile is discarded), then the socket is destroyed whatever it is still sending.
 */
export function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  res.shouldKeepAlive = false;
  if (!res.headersSent) res.setHeader('Connection', 'close');
  res.once('finish', () => {
    req.resume();
    setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  });
}

type Push = (chunk: unknown, encoding?: BufferEncoding) => boolean;

/**
 * Holds back a request's body until all of it has arrived, counting it as it comes: past
 * `maxBytes` it rejects with 'too_large' (and drops the rest), otherwise it resolves with the
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
      (req as { push: Push }).push = () => true;
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
export function setSecurityHeaders(res: ServerResponse, noStore: boolean): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
  // API answers hold keys, ids and account data: never kept by a browser or a shared cache.
  if (noStore) res.setHeader('Cache-Control', 'no-store');
}
