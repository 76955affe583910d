import http from 'node:http';
import net from 'node:net';

// Requests and raw connections from a chosen loopback address (every 127.0.0.0/8 address is
// the local host on Linux): the server sees them as different clients, for the per-address
// connection cap and the trusted proxies (test/api/connections.int.test.ts, proxy.int.test.ts).

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or the text. */
  body: unknown;
}

/** One request on a connection of its own from `localAddress`; rejects when the connection fails. */
export function requestFrom(
  base: string,
  localAddress: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('error', reject);
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent so far. */
  readonly received: string;
  /** Resolves once the server sent something (or closed). */
  answered: Promise<string>;
  /** Resolves when the connection is closed, by either side. */
  closed: Promise<void>;
}

/**
 * A TCP connection from `localAddress` that writes `text` and then nothing more. Half-open is
 * allowed, so the connection stays open after the server's FIN until the server closes it too.
 */
export function rawConnection(base: string, localAddress: string, text: string): RawConnection {
  const url = new URL(base);
  const socket = net.connect({ host: url.hostname, port: Number(url.port), localAddress, allowHalfOpen: true });
  let received = '';
  socket.on('error', () => {});
  socket.on('connect', () => socket.write(text));
  const answered = new Promise<string>((resolve) => {
    socket.on('data', (c: Buffer) => {
      received += c.toString('latin1');
      resolve(received);
    });
    socket.once('close', () => resolve(received));
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    get received() {
      return received;
    },
    answered,
    closed,
  };
}

/** The status line's code, the headers (lower-cased) and the body of a raw HTTP/1.1 answer. */
export function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n') };
}
