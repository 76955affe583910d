// `BENCH_PARTS=clients npm run bench`: the CPU one streamed model call costs the process that
// makes it, for each candidate model client, on the 40-token answer of the hosted-pace fake
// (scripts/bench/fake-model.ts, in its own process: its CPU is not counted). Per client: N streams,
// `CONCURRENCY` at a time, CPU of this process only (`process.cpuUsage()`) ÷ N; every stream is
// checked (all 40 deltas, the exact text, usage). Then one tool-call round per client (the fake
// calls a tool the user's text names, then answers the text), and abort latency: one stream aborted
// after 10 deltas, until the fake sees its connection closed. Needs no database. docs/benchmark.md.
//
//   BENCH_CLIENT_STREAMS (400)  BENCH_CLIENT_CONCURRENCY (100)  BENCH_CLIENT_WARMUP (100 streams)
//   BENCH_CLIENT_PACE (hosted,instant): hosted 30 ms/token after 30 ms; instant 0 ms/token after 1 ms
//   BENCH_CLIENT_VARIANTS (A,B,C,D,E,F)  BENCH_CLIENT_MODES (text,tool)  BENCH_CLIENT_ABORTS (5 per client)
//   BENCH_CLIENT_PROFILE=1: after each measured batch, one more under the V8 sampling profiler
//   (not counted), its self time summed by package (where a client's CPU goes)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import os from 'node:os';
import { createOpenAICompatible, type OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { jsonSchema, stepCountIs, streamText, tool, type LanguageModel, type ModelMessage } from 'ai';
import OpenAI from 'openai';
import { Agent, fetch as undiciFetch, request } from 'undici';
import { runModelLoop } from '../../server/modules/executions/model-loop';
import { fastCompatibleChat } from '../../server/modules/models/compatible';
import { startFakeModel, type FakeModel } from './hosted';
import { median, range, stopAll } from './util';

const PACE_ENV: Record<string, { BENCH_TOKEN_MS: string; BENCH_FIRST_TOKEN_MS: string }> = {
  hosted: { BENCH_TOKEN_MS: '30', BENCH_FIRST_TOKEN_MS: '30' },
  instant: { BENCH_TOKEN_MS: '0', BENCH_FIRST_TOKEN_MS: '1' },
};
const N = Number(process.env.BENCH_CLIENT_STREAMS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CLIENT_CONCURRENCY ?? 100);
const WARMUP = Number(process.env.BENCH_CLIENT_WARMUP ?? 100);
const PACES = (process.env.BENCH_CLIENT_PACE ?? 'hosted,instant').split(',').filter((p) => p in PACE_ENV);
const MODES = (process.env.BENCH_CLIENT_MODES ?? 'text,tool').split(',') as Mode[];
const WANTED = (process.env.BENCH_CLIENT_VARIANTS ?? 'A,B,C,D,E,F,G').split(',');
const ABORTS = Number(process.env.BENCH_CLIENT_ABORTS ?? 5);
const PROFILE = process.env.BENCH_CLIENT_PROFILE === '1';

const REPLY = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '); // fake-model.ts's answer
const MODEL = 'bench-fake';
const INSTRUCTIONS = 'You are a helpful support agent. Answer briefly.';
const PROMPT = { text: 'Tell me about my order.', tool: 'Use lookup_order for order 42, then tell me about it.' };
const TOOL = {
  name: 'lookup_order',
  description: 'Looks an order up by its id',
  schema: { type: 'object' as const, properties: { orderId: { type: 'string' as const } }, required: ['orderId'], additionalProperties: false },
};
const lookup = (input: unknown) => ({ orderId: (input as { orderId?: string }).orderId, status: 'shipped' });

type Mode = 'text' | 'tool';
/** What one stream (or a tool round: two) got. */
interface Outcome {
  text: string;
  deltas: number;
  toolCalls: number;
  outputTokens: number;
}
/** Runs one stream; `onDelta` sees each text delta (the abort test aborts from it). */
type Variant = (mode: Mode, signal: AbortSignal, onDelta: (n: number) => void) => Promise<Outcome>;

const empty = (): Outcome => ({ text: '', deltas: 0, toolCalls: 0, outputTokens: 0 });

// ---------------------------------------------------------------------------------------------
// The clients

function variants(url: string): { list: Record<string, { title: string; run: Variant }>; close: () => Promise<void> } {
  const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL: url, includeUsage: true });
  const model = provider.chatModel(MODEL);
  const aiTools = { [TOOL.name]: tool({ description: TOOL.description, inputSchema: jsonSchema(TOOL.schema), execute: async (input) => lookup(input) }) };
  const history = (mode: Mode): ModelMessage[] => [{ role: 'user', content: PROMPT[mode] }];
  const openai = new OpenAI({ baseURL: url, apiKey: 'bench', maxRetries: 1 });
  // E and F on the npm undici's own pool: its global dispatcher is the one Node's fetch (A–D) installed, if that came first.
  const dispatcher = new Agent();

  // A: streamText, the whole SDK (a step loop with its stream pipeline per step).
  const A: Variant = async (mode, signal, onDelta) => {
    const out = empty();
    const result = streamText({
      model,
      instructions: INSTRUCTIONS,
      messages: history(mode),
      ...(mode === 'tool' ? { tools: aiTools, stopWhen: stepCountIs(2) } : {}),
      maxRetries: 1,
      abortSignal: signal,
    });
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        out.text += part.text;
        onDelta(++out.deltas);
      } else if (part.type === 'tool-call') out.toolCalls++;
      else if (part.type === 'finish') out.outputTokens = part.totalUsage.outputTokens ?? 0;
      else if (part.type === 'error') throw part.error;
      else if (part.type === 'abort') throw new Error('aborted');
    }
    return out;
  };

  // B: the run's loop (model-loop.ts) over experimental_streamLanguageModelCall, called as the
  // runner does, on the provider's model; G: the same on the model the service runs for
  // openai-compatible (models/compatible.ts: the provider's request, our reader).
  const loop = (on: LanguageModel): Variant => async (mode, signal, onDelta) => {
    const out = empty();
    const r = await runModelLoop(
      { model: on, instructions: INSTRUCTIONS, history: history(mode), tools: mode === 'tool' ? aiTools : {}, maxSteps: 2, temperature: null, signal },
      {
        text: async (delta) => {
          out.text += delta;
          onDelta(++out.deltas);
        },
        toolCall: async () => void out.toolCalls++,
        toolResult: async () => {},
      },
    );
    if (r.failure) throw r.failure;
    out.outputTokens = r.steps.reduce((sum, s) => sum + s.usage.outputTokens, 0);
    return out;
  };
  const B = loop(model);
  const G = loop(fastCompatibleChat(model as OpenAICompatibleChatLanguageModel, { baseURL: url, apiKey: 'bench' }));

  // C: the provider's doStream read directly (its SSE parsing and zod check per chunk, no SDK loop).
  const v4 = model as unknown as LanguageModelV4;
  const C: Variant = async (mode, signal, onDelta) => {
    const out = empty();
    const prompt: LanguageModelV4Prompt = [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: [{ type: 'text', text: PROMPT[mode] }] },
    ];
    const tools = mode === 'tool' ? [{ type: 'function' as const, name: TOOL.name, description: TOOL.description, inputSchema: TOOL.schema }] : undefined;
    for (let step = 0; step < 2; step++) {
      const { stream } = await v4.doStream({ prompt, ...(tools ? { tools } : {}), abortSignal: signal });
      const calls: { toolCallId: string; toolName: string; input: unknown }[] = [];
      const reader = stream.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const part = r.value;
        if (part.type === 'text-delta') {
          out.text += part.delta;
          onDelta(++out.deltas);
        } else if (part.type === 'tool-call') calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: JSON.parse(part.input) });
        else if (part.type === 'finish') out.outputTokens += part.usage.outputTokens.total ?? 0;
        else if (part.type === 'error') throw part.error;
      }
      if (calls.length === 0) break;
      out.toolCalls += calls.length;
      prompt.push({ role: 'assistant', content: calls.map((c) => ({ type: 'tool-call' as const, ...c })) });
      prompt.push({ role: 'tool', content: calls.map((c) => ({ type: 'tool-result' as const, toolCallId: c.toolCallId, toolName: c.toolName, output: { type: 'json' as const, value: lookup(c.input) } })) });
    }
    return out;
  };

  // D, E, F: the chat completions wire format, one request per step.
  const chatTools = [{ type: 'function' as const, function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } }];
  const rounds = async (mode: Mode, call: (body: ChatRequest, acc: Accumulator) => Promise<void>, onDelta: (n: number) => void): Promise<Outcome> => {
    const out = empty();
    const messages: ChatRequest['messages'] = [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: PROMPT[mode] },
    ];
    for (let step = 0; step < 2; step++) {
      const acc = new Accumulator(out, onDelta);
      const body: ChatRequest = { model: MODEL, messages, stream: true, stream_options: { include_usage: true }, ...(mode === 'tool' ? { tools: chatTools } : {}) };
      await call(body, acc);
      if (acc.calls.length === 0) break;
      out.toolCalls += acc.calls.length;
      messages.push({ role: 'assistant', content: null, tool_calls: acc.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
      for (const c of acc.calls) messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(lookup(JSON.parse(c.arguments))) });
    }
    return out;
  };

  // D: the official `openai` client (its own SSE decoder; chunks as parsed objects).
  const D: Variant = (mode, signal, onDelta) =>
    rounds(mode, async (body, acc) => {
      const stream = await openai.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsStreaming, { signal });
      for await (const chunk of stream) acc.add(chunk as ChatChunk);
    }, onDelta);

  // E: undici's fetch + a hand-written SSE line split + JSON.parse per chunk.
  const E: Variant = (mode, signal, onDelta) =>
    rounds(mode, async (body, acc) => {
      const res = await undiciFetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: JSON.stringify(body), signal, dispatcher });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      await sse(res.body, acc);
    }, onDelta);

  // F: undici's request (no WHATWG streams: a Node readable) + the same SSE split.
  const F: Variant = (mode, signal, onDelta) =>
    rounds(mode, async (body, acc) => {
      const res = await request(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: JSON.stringify(body), signal, dispatcher });
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      await sse(res.body, acc);
    }, onDelta);

  const list = {
    A: { title: 'A streamText (ai + openai-compatible)', run: A },
    B: { title: 'B model-loop.ts (streamLanguageModelCall)', run: B },
    C: { title: 'C provider doStream() read directly', run: C },
    D: { title: 'D openai chat.completions stream', run: D },
    E: { title: 'E undici fetch + hand SSE', run: E },
    F: { title: 'F undici request + hand SSE', run: F },
    G: { title: 'G model-loop.ts on the service’s reader (compatible.ts)', run: G },
  };
  return { list, close: () => dispatcher.close() };
}

interface ChatRequest {
  model: string;
  stream: true;
  stream_options: { include_usage: boolean };
  tools?: unknown[];
  messages: Array<
    | { role: 'system' | 'user'; content: string }
    | { role: 'assistant'; content: null; tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
    | { role: 'tool'; tool_call_id: string; content: string }
  >;
}

interface ChatChunk {
  choices: { delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[];
  usage?: { completion_tokens?: number } | null;
}

/** One step's chunks: text deltas, tool calls put together by index, usage. */
class Accumulator {
  calls: { id: string; name: string; arguments: string }[] = [];
  constructor(
    private out: Outcome,
    private onDelta: (n: number) => void,
  ) {}

  add(chunk: ChatChunk) {
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) {
      this.out.text += delta.content;
      this.onDelta(++this.out.deltas);
    }
    for (const t of delta?.tool_calls ?? []) {
      const call = (this.calls[t.index] ??= { id: '', name: '', arguments: '' });
      if (t.id) call.id = t.id;
      if (t.function?.name) call.name += t.function.name;
      if (t.function?.arguments) call.arguments += t.function.arguments;
    }
    if (chunk.usage) this.out.outputTokens += chunk.usage.completion_tokens ?? 0;
  }
}

/** Server-sent events by hand: split lines, `data: ` lines parsed as JSON until `[DONE]`. */
async function sse(body: AsyncIterable<Uint8Array>, acc: Accumulator) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let start = 0;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n', start)) {
      const line = buffer.slice(start, buffer.charCodeAt(end - 1) === 13 ? end - 1 : end);
      start = end + 1;
      if (!line.startsWith('data:')) continue;
      const data = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
      if (data === '[DONE]') return;
      acc.add(JSON.parse(data) as ChatChunk);
    }
    buffer = buffer.slice(start);
  }
}

// ---------------------------------------------------------------------------------------------
// Measuring

const ok = (o: Outcome, mode: Mode) => o.text === REPLY && o.deltas === 40 && o.outputTokens > 0 && o.toolCalls === (mode === 'tool' ? 1 : 0);

/** `n` streams of `run`, `concurrency` at a time: CPU of this process and wall time. */
async function batch(run: Variant, mode: Mode, n: number) {
  let next = 0;
  let good = 0;
  const errors: string[] = [];
  const signal = new AbortController().signal;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, n) }, async () => {
      while (next < n) {
        next++;
        try {
          if (ok(await run(mode, signal, () => {}), mode)) good++;
        } catch (err) {
          if (errors.length < 3) errors.push(String(err));
        }
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { user: cpu.user / 1000 / n, system: cpu.system / 1000 / n, wall, good, errors };
}

/** One stream aborted after its 10th delta: ms until the fake saw the connection close, and until the client's call settled. */
async function abortLatency(run: Variant, fake: FakeModel): Promise<{ seen: number; settled: number }> {
  const watching = new Promise((r) => fake.child.once('message', r));
  fake.child.send('watch-aborted');
  await watching;
  const seen = new Promise<number>((resolve) => {
    const on = (m: { type: string }) => m.type === 'aborted' && (fake.child.off('message', on), resolve(performance.now()));
    fake.child.on('message', on);
    setTimeout(() => (fake.child.off('message', on), resolve(NaN)), 3000).unref();
  });
  const controller = new AbortController();
  let t0 = NaN;
  const settled = await run('text', controller.signal, (n) => {
    if (n === 10) {
      t0 = performance.now();
      controller.abort();
    }
  }).then(
    () => performance.now(),
    () => performance.now(),
  );
  return { seen: (await seen) - t0, settled: settled - t0 };
}

/** Self time of a V8 CPU profile by where the code lives: an npm package, a node: internal, this repo, GC. */
function byPackage(profile: Profiler.Profile): string {
  const self = new Map<number, number>();
  profile.samples!.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + profile.timeDeltas![i]!));
  const groups = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (!us || node.callFrame.functionName === '(idle)') continue;
    const url = node.callFrame.url;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    const internal = url.replace(/^node:(internal\/)?/, '').split('/');
    if (internal[0] === 'inspector') continue; // the profiler's own session
    const group = pkg ?? (url.startsWith('node:internal/deps/undici') ? 'node: bundled undici (fetch)' : url.startsWith('node:') ? `node: ${internal[0] === 'webstreams' ? 'web streams' : internal.slice(0, 2).join('/')}` : url ? 'this repo' : node.callFrame.functionName);
    groups.set(group, (groups.get(group) ?? 0) + us);
    total += us;
  }
  return [...groups].sort((a, b) => b[1] - a[1]).slice(0, 7).map(([g, us]) => `${g} ${Math.round((100 * us) / total)} %`).join(', ');
}

async function profiled<T>(fn: () => Promise<T>): Promise<string> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await fn();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return byPackage(profile);
}

function setupLine(): string {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  const cpu = /model name\s*:\s*(.+)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? '?';
  const version = (pkg: string) => (JSON.parse(fs.readFileSync(`node_modules/${pkg}/package.json`, 'utf8')) as { version: string }).version;
  const pkgs = ['ai', '@ai-sdk/openai-compatible', 'openai', 'undici'].map((p) => `${p} ${version(p)}`).join(', ');
  return [
    `commit ${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain']) ? ' (+ local changes)' : ''}`,
    `node ${process.version}`,
    cpu,
    `${os.availableParallelism()} cores`,
    `loadavg ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    `N ${N} (+${WARMUP} warm-up) × ${CONCURRENCY} concurrent`,
    `paces ${PACES.map((p) => `${p} ${PACE_ENV[p]!.BENCH_FIRST_TOKEN_MS}/${PACE_ENV[p]!.BENCH_TOKEN_MS} ms`).join(', ')}`,
    pkgs,
  ].join(' · ');
}

export async function benchClients(): Promise<void> {
  console.log(`\nModel clients: CPU per streamed call of this process (the fake model runs in its own)\nset-up: ${setupLine()}`);
  for (const pace of PACES) {
    const fake = await startFakeModel({ ...process.env, ...PACE_ENV[pace] });
    try {
      const clients = variants(fake.url);
      const all: Record<string, { title: string; run: Variant }> = clients.list;
      const chosen = WANTED.filter((v) => v in all);
      for (const mode of MODES) {
        const rows = [];
        const profiles: string[] = [];
        for (const name of chosen) {
          const v = all[name]!;
          await batch(v.run, mode, WARMUP); // JIT, connections
          const r = await batch(v.run, mode, N);
          rows.push({
            variant: v.title,
            'CPU ms/stream': Number((r.user + r.system).toFixed(2)),
            'user + sys': `${r.user.toFixed(2)} + ${r.system.toFixed(2)}`,
            'wall s': Number(r.wall.toFixed(2)),
            'streams ok': `${r.good}/${N}`,
          });
          if (r.errors.length) console.log(`${v.title}: ${r.errors.join(' | ')}`);
          if (PROFILE) profiles.push(`${v.title}: ${await profiled(() => batch(v.run, mode, N))}`);
        }
        console.log(`\n${pace} pace · ${mode === 'text' ? '40-token text answer' : 'tool round: a tool call, then the 40-token answer (2 requests)'}`);
        console.table(rows);
        if (PROFILE) console.log(`self time by package (a profiled batch of ${N} more):\n  ${profiles.join('\n  ')}`);
      }
      if (pace === 'hosted' && ABORTS > 0) {
        const rows = [];
        const summary = (xs: number[]) => (xs.some(Number.isNaN) ? `${xs.filter(Number.isNaN).length} not seen in 3 s` : `${median(xs).toFixed(1)} (${range(xs, 1)})`);
        for (const name of chosen) {
          const runs = [];
          for (let i = 0; i < ABORTS; i++) runs.push(await abortLatency(all[name]!.run, fake));
          rows.push({ variant: all[name]!.title, 'fake sees close ms': summary(runs.map((r) => r.seen)), 'call settles ms': summary(runs.map((r) => r.settled)) });
        }
        console.log(`\nabort after the 10th delta (hosted pace, ${ABORTS} each, median (range)): ms from abort() until the fake saw the connection close (1 ms poll + IPC), and until the call returned or threw`);
        console.table(rows);
      }
      await clients.close();
    } finally {
      await stopAll([fake.child]);
    }
  }
}
