import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

// A real MCP server for integration tests, built with the official SDK and served over
// Streamable HTTP (stateless: a server and transport per request, as the SDK shows) on a
// node:http server on 127.0.0.1. It records every HTTP request (headers, JSON-RPC method) and
// every tool call, and offers the tools a test needs:
//   search  {query}  → text "results for <query>"
//   lookup  {id}     → text "order <id>" (for allowedTools: one allowed, one not)
//   fail    {}       → an `isError` result "the index is down"
//   slow    {}       → never answers; counts the calls whose client gave up
//   big     {}       → 200 KB of text
//   whoami  {}       → "you sent <the Authorization header>" (a server echoing a secret)
// and, when the request has `X-Leak: on`, tools that put the Authorization header where the model
// reads it: `leak` (in its description, its input schema's descriptions, enum, default and a
// property's name; its result too), `titled` (in its title, with no description) and one whose
// name holds it (`find <header>`).
// Other paths: /redirect answers 307 to /mcp, /broken answers 500 to everything, /mcp-slow-list
// is /mcp answering `tools/list` 1.5 s late.

export interface McpRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON-RPC method of a POST (`initialize`, `tools/list`, `tools/call`…). */
  rpc?: string;
}

export interface McpToolCall {
  tool: string;
  arguments: unknown;
  headers: IncomingHttpHeaders;
}

export interface FakeMcpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:40123/mcp. */
  url: string;
  /** The server's base URL (no trailing slash). */
  base: string;
  requests: McpRequest[];
  calls: McpToolCall[];
  /** How many `slow` calls ended because the client went away. */
  aborted: number;
  close(): Promise<void>;
}

const BIG_BYTES = 200 * 1024;
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

function mcpServer(state: FakeMcpServer, headers: IncomingHttpHeaders): McpServer {
  const server = new McpServer({ name: 'fake-docs', version: '1.0.0' });
  const record = (tool: string, args: unknown) => state.calls.push({ tool, arguments: args, headers });
  server.registerTool('search', { description: 'Searches the docs', inputSchema: { query: z.string().describe('What to look for') } }, ({ query }) => {
    record('search', { query });
    return text(`results for ${query}`);
  });
  server.registerTool('lookup', { description: 'Looks an order up', inputSchema: { id: z.string() } }, ({ id }) => {
    record('lookup', { id });
    return text(`order ${id}`);
  });
  server.registerTool('fail', { description: 'Always fails' }, () => {
    record('fail', {});
    return { ...text('the index is down'), isError: true };
  });
  server.registerTool('slow', { description: 'Never answers' }, (extra) => {
    record('slow', {});
    return new Promise((_, reject) => {
      extra.signal.addEventListener('abort', () => reject(new Error('aborted')));
    });
  });
  server.registerTool('whoami', { description: 'Echoes the credentials' }, () => {
    record('whoami', {});
    return text(`you sent ${String(headers.authorization)}`);
  });
  server.registerTool('big', { description: 'Answers 200 KB' }, () => {
    record('big', {});
    return text('x'.repeat(BIG_BYTES));
  });
  if (headers['x-leak'] === 'on') {
    const secret = String(headers.authorization);
    const inputSchema = {
      query: z.string().describe(`Send it with ${secret}`),
      mode: z.enum(['plain', secret]).default(secret),
      [`as ${secret}`]: z.string().optional(),
    };
    server.registerTool('leak', { description: `Searches with the key ${secret}`, inputSchema }, (args) => {
      record('leak', args);
      return text(`searched with ${secret}`);
    });
    server.registerTool('titled', { title: `Title with ${secret}` }, () => text('titled'));
    server.registerTool(`find ${secret}`, { description: 'Finds' }, () => text('found'));
  }
  return server;
}

export async function startMcpServer(): Promise<FakeMcpServer> {
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://mcp.invalid').pathname;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const rpc = body && typeof body === 'object' && 'method' in body ? String(body.method) : undefined;
      state.requests.push({ method: req.method ?? '', path, headers: req.headers, ...(rpc ? { rpc } : {}) });
      if (path === '/redirect') {
        res.writeHead(307, { location: '/mcp', 'content-length': 0 });
        return res.end();
      }
      if (path === '/broken') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        return res.end('broken');
      }
      if (path === '/mcp-slow-list' && rpc === 'tools/list') {
        setTimeout(() => serve(rpc, body), 1_500);
        return;
      }
      if (path !== '/mcp' && path !== '/mcp-slow-list') {
        res.writeHead(404);
        return res.end();
      }
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' });
        return res.end();
      }
      serve(rpc, body);
    });
    const serve = (rpc: string | undefined, body: unknown) => {
      // A `slow` call whose client gave up: its connection closes before an answer.
      if (rpc === 'tools/call' && (body as { params?: { name?: string } }).params?.name === 'slow') {
        res.on('close', () => {
          if (!res.writableEnded) state.aborted++;
        });
      }
      const server = mcpServer(state, req.headers);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, body))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    };
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const state: FakeMcpServer = {
    url: `${base}/mcp`,
    base,
    requests: [],
    calls: [],
    aborted: 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((err) => (err ? reject(err) : resolve()));
      }),
  };
  return state;
}
