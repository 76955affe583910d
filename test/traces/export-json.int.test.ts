// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startOtlpReceiver, type OtlpReceiver } from '../fakes/otlp-receiver';
import { startToolServer, type ToolServer } from '../fakes/tool-server';
import { startServer, type TestServer } from '../harness';
import { exportedAsRead, exportEnv, hungCollector } from './export';

// OTLP export over http/json (docs/traces.md, "Export"), to a real local collector.

let api: TestServer;
let fake: FakeOpenAI;
let tools: ToolServer;
let receiver: OtlpReceiver;

before(async () => {
  [fake, tools, receiver] = await Promise.all([startFakeOpenAI(), startToolServer(), startOtlpReceiver()]);
  api = await startServer({ env: exportEnv(receiver, fake, 'http/json') });
});
after(async () => {
  await api?.close();
  await Promise.all([fake?.close(), tools?.close(), receiver?.close()]);
});

describe('OTLP export, http/json', () => {
  it('sends every span of a run as the trace API shows it', async () => {
    await exportedAsRead(api, receiver, tools);
    assert.ok(receiver.requests.length > 0);
    for (const r of receiver.requests) assert.equal(r.contentType.split(';')[0], 'application/json');
  });

  it('a collector that hangs costs a run nothing', () => hungCollector(api, receiver));
});
