import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

// A small local HTTP tool for integration tests: a real node:http server on 127.0.0.1 (call it
// with allowPrivate: true) that records every request with its raw body, so tests can verify
// signatures, and offers the answers a tool can give: echo, slow (until the client gives up),
// late (`/wait?ms=`), failure, oversized, redirect.

export interface ToolRequest {
  path: string;
  /** The path and query exactly as received (`req.url`): the tool's URL is `server.url + url`. */
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
}

export interface ToolServer {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  requests: ToolRequest[];
  /** How many /slow requests ended because the client disconnected. */
  aborted: number;
  close(): Promise<void>;
}

const BIG_BYTES = 200 * 1024;

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function parse(body: string): unknown {
  try {
    return body ? JSON.parse(body) : null;
  } catch {
    return body;
  }
}

export async function startToolServer(): Promise<ToolServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://tool.invalid');
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ path: url.pathname, url: req.url ?? '/', method: req.method ?? '', headers: req.headers, body });
      const route = `${req.method} ${url.pathname}`;
      switch (route) {
        case 'POST /echo':
          return json(res, 200, { received: parse(body) });
        case 'GET /echo':
          return json(res, 200, Object.fromEntries(url.searchParams));
        case 'GET /query':
          // Every value of every parameter, in order: a repeated name shows up as a list.
          return json(res, 200, [...url.searchParams]);
        case 'POST /slow':
          // Never answers; counts the client giving up (its socket closing before an answer).
          res.on('close', () => {
            if (!res.writableEnded) state.aborted++;
          });
          return;
        case 'POST /wait':
          // Answers as /echo, after `?ms=` milliseconds (a tool slow enough for something to happen meanwhile).
          return void setTimeout(() => json(res, 200, { received: parse(body) }), Math.min(Number(url.searchParams.get('ms') ?? 500), 10_000));
        case 'POST /fail':
          return json(res, 500, { error: 'boom' });
        case 'POST /big':
          return json(res, 200, { data: 'x'.repeat(BIG_BYTES) });
        case 'POST /redirect':
          res.writeHead(302, { location: '/echo', 'content-length': 0 });
          return res.end();
        default:
          return json(res, 404, { error: 'not found' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const state: ToolServer = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    aborted: 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
  return state;
}

/** Whether a request the tool server got verifies with `secret` (Standard Webhooks over `<METHOD> <URL>\n<body>`, docs/executions.md). */
export function signedBy(secret: string, server: Pick<ToolServer, 'url'>, req: ToolRequest): boolean {
  try {
    new Webhook(secret).verify(`${req.method} ${server.url}${req.url}\n${req.body}`, req.headers as Record<string, string>, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
}
