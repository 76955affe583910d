import { STATUS_CODES } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../errors';
import { newId } from '../ids';
import { log } from '../log';
import { LINGER, SECURITY_HEADERS, SERVER_TIMEOUTS } from './exchange';

// What a client gets when Node's HTTP parser refuses its request (the server's 'clientError'):
// a header with a character HTTP does not allow (an API key pasted with a trailing newline or
// carriage return is the usual one), headers over 16 KiB, a broken request line or body
// framing, or a request too slow to arrive. Node would answer a bare `400 Bad Request` with no
// body and no request id; we answer in the API's error envelope with `X-Request-Id`, as any
// other error, whenever nothing of a response has been written on the connection yet.
//
// The request was never read, so it belongs to no key and (behind a proxy, whose
// X-Forwarded-For we could not read) to no known client: it is neither counted against a rate
// limit nor answered with X-RateLimit-* headers. The log line has the request id and the
// parser's error code, never the request's bytes (Node's error carries them, key included).

/** llhttp's codes for a header line it could not read. */
const HEADER_CODES = new Set(['HPE_INVALID_HEADER_TOKEN', 'HPE_CR_EXPECTED', 'HPE_LF_EXPECTED', 'HPE_INVALID_CONSTANT', 'HPE_UNEXPECTED_SPACE']);

/** The error a refused request is answered with, by the parser's (or Node's) error code. */
export function clientErrorAnswer(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError('request_header_too_large', 'The request headers are larger than 16 KiB in all; nothing was done');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const { headersTimeout, requestTimeout } = SERVER_TIMEOUTS;
    return new ApiError(
      'request_timeout',
      `The request did not arrive in time (headers within ${headersTimeout / 1000} s, the whole request within ${requestTimeout / 1000} s); nothing was done`,
    );
  }
  if (code !== undefined && HEADER_CODES.has(code)) {
    return new ApiError(
      'malformed_request',
      'The request could not be parsed: a header holds a character HTTP does not allow, such as a line break or a control ' +
        'character (check that the API key was copied without a trailing newline); nothing was done',
    );
  }
  return new ApiError('malformed_request', 'The request could not be parsed as HTTP/1.1 (its request line, headers or body framing are invalid); nothing was done');
}

/** Connections answered already: the parser refuses every later chunk the same way. */
const answered = new WeakSet<Duplex>();

/**
 * Whether this connection's request was refused here already. A request that timed out can
 * still complete afterwards (the parser is not in error): the server must drop it unhandled, or
 * a request answered 408 "nothing was done" would be done after all.
 */
export const refusedBefore = (socket: Duplex): boolean => answered.has(socket);

type InFlight = ServerResponse & { req?: { complete: boolean } };

export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (err.code === 'ECONNRESET') return void socket.destroy();
  const inFlight = (socket as Duplex & { _httpMessage?: InFlight | null })._httpMessage;
  if (inFlight && !inFlight.req?.complete) {
    // The refusal is in the body of the request being handled: answer in its place unless its
    // answer has begun (writing now would corrupt it).
    return inFlight.headersSent ? void socket.destroy() : respond(err, socket, LINGER.maxMs);
  }
  if (inFlight && !inFlight.writableFinished) {
    // A later request, pipelined behind one whose answer is under way: answer after it.
    inFlight.once('finish', () => respond(err, socket, lingerFor(err)));
    inFlight.once('close', () => inFlight.writableFinished || socket.destroy());
    return;
  }
  respond(err, socket, lingerFor(err));
}

/**
 * How long a refused connection is kept after its answer (see `respond`) when no request body
 * is under way: a client too slow to send its headers has nothing left to send and gets
 * LINGER.idleMs — its connection is what a slow-headers attack wants to keep.
 */
const lingerFor = (err: Error & { code?: string }) => (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? LINGER.idleMs : LINGER.maxMs);

function respond(err: Error & { code?: string }, socket: Duplex, lingerMs: number): void {
  if (!socket.writable) return void socket.destroy();
  const requestId = newId('req');
  const error = clientErrorAnswer(err.code);
  socket.end(rawAnswer(error, requestId));
  log.info({ requestId, status: error.status, parserError: err.code }, 'request could not be parsed');
  // Closed once the client has read the answer and closed its side, or after `lingerMs`: a
  // client still sending what was refused (headers too large, a body too slow) would otherwise
  // get a reset, often before it read the answer.
  lingerThenDestroy(socket, lingerMs);
}

/** An error answer written straight to a socket (no ServerResponse): our envelope, then `Connection: close`. */
export function rawAnswer(error: ApiError, requestId: string, extra: Record<string, string> = {}): string {
  const body = JSON.stringify(error.toBody(requestId));
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Cache-Control': 'no-store',
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    ...extra,
    Connection: 'close',
  };
  const head = [`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** After an answer and our FIN: destroyed when the client closes its side, or after `ms`. */
export function lingerThenDestroy(socket: Duplex, ms: number): void {
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
}
