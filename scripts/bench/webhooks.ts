// The webhooks part of `npm run bench` (docs/benchmark.md): one app process running its workers
// (RUN_WORKERS=true) on the bench database, and a bare node:http receiver in this process that
// answers 200 at once and notes when each delivery arrives.
//   - latency: sequential changes (POST /v1/agents), one webhook; event → delivery = the
//     delivery's arrival − the event's `createdAt`; the queue is idle between changes.
//   - fan-out: BENCH_WEBHOOK_ENDPOINTS webhooks (10) on `*`, BENCH_WEBHOOK_EVENTS changes (200)
//     made by 10 concurrent clients; deliveries/s from the first change to the last delivery.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type postgres from 'postgres';
import { sample, storePids, used } from './cpu';
import { freePorts, percentile, rssMb, sleep, spawnService, stopAll, waitFor } from './util';

const LATENCY_EVENTS = Number(process.env.BENCH_WEBHOOK_LATENCY_EVENTS ?? 100);
const ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 10);
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 200);
const CLIENTS = 10;

export interface WebhooksSetup {
  env: NodeJS.ProcessEnv;
  key: string;
  admin: postgres.Sql;
  dbName: string;
  redis: number | undefined;
}

interface Arrival {
  path: string;
  id: string;
  at: number;
}

function startReceiver(): Promise<{ server: Server; port: number; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push({ path: req.url ?? '', id: String(req.headers['webhook-id']), at: Date.now() });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, arrivals })));
}

async function until(done: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`bench: ${what} not done in ${timeoutMs} ms`);
    await sleep(5);
  }
}

export async function benchWebhooks({ env, key, admin, dbName, redis }: WebhooksSetup) {
  const receiver = await startReceiver();
  const [port] = await freePorts(1);
  const origin = `http://127.0.0.1:${port}`;
  const app = spawnService('main', { ...env, PORT: String(port), RUN_WORKERS: 'true', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  const call = async <T>(method: string, path: string, body?: unknown, expect = 200): Promise<T> => {
    const res = await fetch(origin + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status !== expect) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const hooks: string[] = [];
  try {
    await waitFor(`${origin}/readyz`, app);
    const base = `http://127.0.0.1:${receiver.port}`;

    // Latency, one endpoint, one change at a time.
    hooks.push((await call<{ id: string }>('POST', '/v1/webhooks', { url: `${base}/latency`, events: ['agent.created'] }, 201)).id);
    const latency: number[] = [];
    for (let i = 0; i < LATENCY_EVENTS + 10; i++) {
      await call('POST', '/v1/agents', { name: `Webhook bench ${i}` }, 201);
      const n = receiver.arrivals.length;
      await until(() => receiver.arrivals.length > n, 10_000, 'a delivery');
      const arrival = receiver.arrivals[receiver.arrivals.length - 1]!;
      const event = await call<{ createdAt: string }>('GET', `/v1/events/${arrival.id}`);
      // The first 10 warm up (JIT, connections, prepared statements).
      if (i >= 10) latency.push(arrival.at - Date.parse(event.createdAt));
      await sleep(20);
    }
    await call('DELETE', `/v1/webhooks/${hooks.pop()!}`);

    // Fan-out: ENDPOINTS webhooks on `*`, EVENTS changes from CLIENTS clients.
    for (let i = 0; i < ENDPOINTS; i++) hooks.push((await call<{ id: string }>('POST', '/v1/webhooks', { url: `${base}/fan/${i}`, events: ['*'] }, 201)).id);
    const start = receiver.arrivals.length;
    const before = sample(app.pid!, await storePids(admin, dbName, redis));
    const t0 = Date.now();
    let made = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (made < EVENTS) {
          made++;
          await call('POST', '/v1/agents', { name: `Fan-out ${made}` }, 201);
        }
      }),
    );
    const changed = Date.now() - t0;
    const expected = EVENTS * ENDPOINTS;
    await until(() => receiver.arrivals.length - start >= expected, 120_000, 'the fan-out');
    const took = Date.now() - t0;
    const cpu = used(before, sample(app.pid!, await storePids(admin, dbName, redis)));
    const fan = receiver.arrivals.slice(start);
    const perEndpoint = new Map<string, number>();
    for (const a of fan) perEndpoint.set(a.path, (perEndpoint.get(a.path) ?? 0) + 1);

    console.log(`\nWebhooks · 1 app process (workers in it) · receiver: bare node:http answering 200`);
    console.table([
      {
        measure: `event → delivery, 1 endpoint, ${LATENCY_EVENTS} sequential changes (queue idle)`,
        result: `p50 ${percentile(latency, 50)} ms · p99 ${percentile(latency, 99)} ms`,
      },
      {
        measure: `fan-out: ${EVENTS} changes × ${ENDPOINTS} endpoints (${CLIENTS} clients)`,
        result: `${Math.round((fan.length / took) * 1000)} deliveries/s (${fan.length} in ${(took / 1000).toFixed(1)} s; changes made in ${(changed / 1000).toFixed(1)} s)`,
      },
      { measure: 'CPU per delivery (app + db), fan-out', result: `${((cpu.server + cpu.stores) / fan.length).toFixed(2)} ms (${(cpu.server / fan.length).toFixed(2)} + ${(cpu.stores / fan.length).toFixed(2)})` },
      { measure: 'deliveries per endpoint', result: `${Math.min(...perEndpoint.values())}–${Math.max(...perEndpoint.values())} (expected ${EVENTS})` },
      { measure: 'RSS of the app process', result: `${Math.round(rssMb(app.pid!))} MB` },
    ]);
  } finally {
    for (const id of hooks) await call('DELETE', `/v1/webhooks/${id}`).catch(() => {});
    await stopAll([app]);
    receiver.server.closeAllConnections();
    receiver.server.close();
  }
}
