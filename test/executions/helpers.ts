import assert from 'node:assert/strict';
import { executionEventSchema, TERMINAL_EVENT_TYPES, type ExecutionEventType } from '../../server/modules/executions/events';
import type { ExecutionView, ConversationView } from '../../server/modules/executions/schemas';
import { expectStatus } from '../expect';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai';
import { startToolServer } from '../fakes/tool-server';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { eventually } from '../eventually';

// What the execution tests do again and again: make an agent, execute it, wait for a status,
// and read an event stream the way an SSE client does.

export type Execution = ExecutionView;
export type Conversation = ConversationView;

export interface SseEvent {
  id: number;
  event: ExecutionEventType;
  /** The event (checked against the contract, server/modules/executions/events.ts). */
  data: Record<string, unknown> & { type: ExecutionEventType };
}

export async function createAgent(api: TestServer, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api.request<{ id: string }>('POST', '/v1/agents', { key, body: { name: 'Test agent', ...body } });
  expectStatus(res, 201);
  return res.body.id;
}

export async function execute(api: TestServer, key: string, agentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return api.request<Execution>('POST', `/v1/agents/${agentId}/execute`, { key, body, headers });
}

/** Polls the execution until `done(execution)` (default: a final status), for at most `timeoutMs`. */
export async function waitFor(
  api: TestServer | { request: TestServer['request'] },
  key: string,
  id: string,
  done: (e: Execution) => boolean = (e) => ['succeeded', 'failed', 'cancelled'].includes(e.status),
  timeoutMs = 15_000,
): Promise<Execution> {
  const read = async () => {
    const res = await api.request<Execution>('GET', `/v1/executions/${id}`, { key });
    expectStatus(res, 200);
    return res.body;
  };
  return eventually(`execution ${id} done`, read, done, { timeoutMs, everyMs: 25 });
}

/**
 * Parses a text/event-stream body into its events (comments such as `: ping` are skipped); each
 * event must be one of the contract's (executionEventSchema), its `event:` its `type`.
 */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || !line.includes(':')) continue;
      const at = line.indexOf(':');
      fields[line.slice(0, at)] = line.slice(at + 1).trimStart();
    }
    if (!fields.data) continue;
    const data = JSON.parse(fields.data) as SseEvent['data'];
    const checked = executionEventSchema.safeParse(data);
    assert.ok(checked.success, `not an execution event: ${fields.data.slice(0, 500)}\n${checked.error?.message}`);
    assert.equal(fields.event, data.type, 'event: is the type of data:');
    events.push({ id: Number(fields.id), event: data.type, data });
  }
  return events;
}

/** Opens an SSE request and collects its events until the stream ends (or `timeoutMs`). */
export async function readStream(
  url: string,
  init: { method?: string; key: string; body?: unknown; headers?: Record<string, string> },
  timeoutMs = 15_000,
): Promise<{ status: number; headers: Headers; events: SseEvent[]; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.key}`, ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, events: res.headers.get('content-type')?.startsWith('text/event-stream') ? parseSse(text) : [], text };
}

export const FINAL_EVENTS: readonly string[] = TERMINAL_EVENT_TYPES;

/**
 * A server allowed to call the tool server it starts beside it (a local address), an unlimited
 * test key and a live key of the same workspace; `close` stops them all.
 */
export async function startWithTools(env: Record<string, string> = {}) {
  const tools = await startToolServer();
  const api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...env } });
  const owner = await api.seed.key({ ...UNLIMITED });
  const live: SeededKey = await api.seed.key({ workspace: owner.workspace, environment: 'live' });
  return { api, tools, owner, live, close: () => Promise.all([api.close(), tools.close()]).then(() => {}) };
}

/** `startWithTools` with a fake OpenAI-compatible provider as `openai-compatible/…` (live keys call it). */
export async function startWithModelAndTools(env: Record<string, string> = {}) {
  const fake: FakeOpenAI = await startFakeOpenAI();
  const started = await startWithTools({ OPENAI_COMPATIBLE_BASE_URL: fake.url, ...env });
  return { ...started, fake, close: () => Promise.all([started.close(), fake.close()]).then(() => {}) };
}
