import http from 'node:http';
import type { AddressInfo } from 'node:net';

// The network between a client and the server, made to fail on purpose (the outside world the
// typed client must survive): a real HTTP proxy in front of the test server that forwards every
// request, and for the requests a rule matches, loses the answer after the server sent it, or
// cuts an event stream after a number of its events.

export type Rule =
  /** The server handles the request fully; the client's connection is closed without an answer. */
  | { kind: 'lose-answer'; match: (req: http.IncomingMessage) => boolean }
  /** The answer's headers and its first `events` SSE blocks reach the client, then the connection is cut. */
  | { kind: 'cut-stream'; match: (req: http.IncomingMessage) => boolean; events: number };

export interface FlakyProxy {
  url: string;
  /** Rules for the next matching requests, each used once, in order. */
  rules: Rule[];
  /** Every request that went through: method, path and the headers the client sent. */
  seen: { method: string; path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startFlakyProxy(target: string): Promise<FlakyProxy> {
  const upstream = new URL(target);
  const rules: Rule[] = [];
  const seen: FlakyProxy['seen'] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, path: req.url!, headers: req.headers });
    const at = rules.findIndex((r) => r.match(req));
    const rule = at === -1 ? undefined : rules.splice(at, 1)[0];
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      if (rule?.kind === 'lose-answer') {
        answer.resume();
        answer.on('end', () => res.socket?.destroy());
        return;
      }
      res.writeHead(answer.statusCode!, answer.headers);
      if (rule?.kind !== 'cut-stream') return void answer.pipe(res);
      let text = '';
      let cut = false;
      answer.on('data', (chunk: Buffer) => {
        if (cut) return;
        text += chunk.toString('utf8');
        const blocks = text.split('\n\n');
        // Whole blocks that are events (not `: ping` comments), up to the rule's count.
        let passed = '';
        let events = 0;
        for (const block of blocks.slice(0, -1)) {
          if (events === rule.events) break;
          passed += `${block}\n\n`;
          if (/^(id|event|data):/m.test(block)) events++;
        }
        if (events === rule.events) {
          cut = true;
          res.write(passed);
          answer.destroy();
          setTimeout(() => res.socket?.destroy(), 20);
        }
      });
      answer.on('end', () => cut || res.end(text));
    });
    out.on('error', () => res.socket?.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    rules,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
