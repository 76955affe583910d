import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

// A real webhook receiver for the tests (the outside world): an HTTP server on a random port
// that records every request and answers what the test scripts (a queue of answers, then a default).

export interface Received {
  at: number;
  /** The path and query exactly as requested (`req.url`). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; createdAt: string; environment: string; data: { object: Record<string, unknown> } };
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Answers for the next requests, in order; after them, `fallback`. */
  script(...answers: Answer[]): void;
  fallback: Answer;
  /** Resolves once `n` requests arrived (or fails after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  /** Stops listening (connections refused) and starts again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const queue: Answer[] = [];
  let server: Server;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let json: Received['json'];
          try {
            json = JSON.parse(body) as Received['json'];
          } catch {
            json = {} as Received['json'];
          }
          received.push({ at: Date.now(), url: req.url ?? '/', headers: req.headers, body, json });
          const answer = queue.shift() ?? receiver.fallback;
          const reply = setTimeout(() => {
            if (res.destroyed) return;
            res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
            res.end(answer.body ?? 'ok');
          }, answer.delayMs ?? 0);
          // A held answer whose sender went away (or the receiver closed) is never sent: its timer
          // must not keep the test's process alive for the rest of the delay.
          res.once('close', () => clearTimeout(reply));
        });
      });
      server.keepAliveTimeout = 1;
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  await listen();
  const receiver: Receiver = {
    get url() {
      return `http://127.0.0.1:${port}${path}`;
    },
    get port() {
      return port;
    },
    received,
    fallback: { status: 200 },
    script: (...answers) => void queue.push(...answers),
    async waitFor(n, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${n} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received.slice(0, n);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    start: listen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return receiver;
}

/** Verifies a received request with the `standardwebhooks` library (throws when it does not verify). */
export function verify(secret: string, r: Pick<Received, 'headers' | 'body'>): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
}
