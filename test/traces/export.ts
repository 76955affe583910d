import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TraceView } from '../../server/modules/traces/schemas';
import { expectStatus } from '../expect';
import { eventually } from '../eventually';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startOtlpReceiver, type OtlpReceiver } from '../fakes/otlp-receiver';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type TestServer } from '../harness';
import { createAgent, execute } from '../executions/helpers';

// What the two OTLP export files (protobuf, JSON) check alike: a tool-using run's spans reach the
// collector as the trace API shows them — ids, parents, names, kinds, status, GenAI attributes,
// the resource's service.name — and a collector that hangs costs a run nothing.

export const PRICED = 'openai-compatible/fake-1';

export function exportEnv(receiver: OtlpReceiver, fake: FakeOpenAI, protocol: string): Record<string, string> {
  return {
    OPENAI_COMPATIBLE_BASE_URL: fake.url,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    MODEL_PRICES: JSON.stringify({ [PRICED]: { input: 2.5, output: 10 } }),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'aas-under-test',
  };
}

export async function exportedAsRead(api: TestServer, receiver: OtlpReceiver, tools: ToolServer): Promise<void> {
  const key = await api.seed.key({ ...UNLIMITED, environment: 'live' });
  const lookup = { type: 'http', name: 'lookup', description: 'Looks up', url: `${tools.url}/echo`, method: 'POST', parameters: { type: 'object', properties: { q: { type: 'string' } } } };
  const agent = await createAgent(api, key.key, { name: 'Exported', model: PRICED, tools: [lookup] });
  const run = await execute(api, key.key, agent, { input: 'use lookup for the export', wait: true });
  assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body.error));
  const read = await api.request<TraceView>('GET', `/v1/executions/${run.body.id}/trace`, { key: key.key });
  expectStatus(read, 200);
  const got = await eventually(
    'the spans reach the collector',
    async () => receiver.spans.filter((s) => s.traceId === run.body.traceId),
    (spans) => spans.length === read.body.spans.length,
    { timeoutMs: 10_000, everyMs: 50 },
  );
  for (const want of read.body.spans) {
    const s = got.find((g) => g.spanId === want.id);
    assert.ok(s, `span ${want.name} ${want.id} exported`);
    assert.equal(s.name, want.name);
    assert.equal(s.parentSpanId, want.parentId ?? '');
    assert.equal(s.kind, want.kind === 'client' ? 3 : 1, 'SpanKind CLIENT / INTERNAL');
    assert.equal(s.statusCode, want.status === 'error' ? 2 : 1);
    assert.equal(s.startMs, Date.parse(want.startedAt));
    assert.equal(s.endMs, Date.parse(want.endedAt));
    assert.equal(s.resource['service.name'], 'aas-under-test');
    for (const [name, value] of Object.entries(want.attributes)) {
      if (name === 'aas.cost.usd') assert.equal(Number(s.attributes[name]), Number(value), `${want.name} ${name}`);
      else assert.deepEqual(s.attributes[name], value, `${want.name} ${name}`);
    }
  }
  assert.deepEqual(got.map((s) => s.name).sort(), ['execution', 'model_call', 'model_call', 'queue_wait', 'tool_call']);
}

/** Runs while the collector takes requests and never answers: as fast as with none. */
export async function hungCollector(api: TestServer, receiver: OtlpReceiver): Promise<void> {
  const key = await api.seed.key({ ...UNLIMITED, environment: 'live' });
  const agent = await createAgent(api, key.key, { model: PRICED });
  receiver.hang = true;
  const before = receiver.spans.length;
  try {
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const run = await execute(api, key.key, agent, { input: `hung ${i}`, wait: true });
      times.push(performance.now() - t0);
      assert.equal(run.body.status, 'succeeded');
    }
    times.sort((a, b) => a - b);
    assert.ok(times[15]! < 500, `wait p50 ${times[15]!.toFixed(0)} ms with the collector hung`);
    assert.equal(receiver.spans.length, before, 'nothing was taken while it hung');
  } finally {
    receiver.hang = false;
  }
}

/**
 * The suite of one protocol, against a real local collector: a file of its own each (the
 * process reads OTEL_* once).
 */
export function exportSuite(protocol: 'http/protobuf' | 'http/json', contentType: string): void {
  let api: TestServer;
  let fake: FakeOpenAI;
  let tools: ToolServer;
  let receiver: OtlpReceiver;
  before(async () => {
    [fake, tools, receiver] = await Promise.all([startFakeOpenAI(), startToolServer(), startOtlpReceiver()]);
    api = await startServer({ env: exportEnv(receiver, fake, protocol) });
  });
  after(async () => {
    await api?.close();
    await Promise.all([fake?.close(), tools?.close(), receiver?.close()]);
  });
  describe(`OTLP export, ${protocol}`, () => {
    it('sends every span of a run as the trace API shows it', async () => {
      await exportedAsRead(api, receiver, tools);
      assert.ok(receiver.requests.length > 0);
      for (const r of receiver.requests) assert.equal(r.contentType.split(';')[0], contentType);
    });
    it('a collector that hangs costs a run nothing', () => hungCollector(api, receiver));
  });
}
