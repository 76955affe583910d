import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { argumentsFor, namesTool, sandboxModel } from './sandbox';

// The sandbox provider through the real AI SDK: echo, tool calls and their follow-up, the
// same answer for the same prompt, usage counts, streamed deltas and cancellation.

const calls: unknown[] = [];
const tools = {
  lookup: tool({
    description: 'Looks a customer up',
    inputSchema: jsonSchema<{ query: string; limit: number; exact: boolean; kind: 'person' | 'company' }>({
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer', minimum: 2 },
        exact: { type: 'boolean' },
        kind: { type: 'string', enum: ['person', 'company'] },
      },
      required: ['query'],
    }),
    execute: async (input) => {
      calls.push(input);
      return { found: 1, name: 'Ada' };
    },
  }),
};

describe('sandbox model', () => {
  it('echoes the last user message', async () => {
    const result = await generateText({ model: sandboxModel('echo'), prompt: 'hello' });
    assert.equal(result.text, 'Echo: hello');
    assert.equal(result.finishReason, 'stop');
    assert.ok((result.usage.inputTokens ?? 0) > 0);
    assert.ok((result.usage.outputTokens ?? 0) > 0);
    assert.equal(result.usage.totalTokens, (result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0));
  });

  it('cuts its answer at a maximum output, as a provider does (finish `length`)', async () => {
    const long = `tell me ${'more and more '.repeat(20)}`;
    const full = await generateText({ model: sandboxModel('echo'), prompt: long });
    assert.ok((full.usage.outputTokens ?? 0) > 5);
    const cut = await generateText({ model: sandboxModel('echo'), prompt: long, maxOutputTokens: 5 });
    assert.equal(cut.finishReason, 'length');
    assert.equal(cut.usage.outputTokens, 5);
    assert.ok(full.text.startsWith(cut.text) && cut.text.length === 20);
    // A tool call too long for it comes out as cut text, never as a call.
    const call = await generateText({ model: sandboxModel('echo'), prompt: 'please lookup the customer named Ada Lovelace of London', tools, maxOutputTokens: 2 });
    assert.equal(call.toolCalls.length, 0);
    assert.equal(call.finishReason, 'length');
  });

  it('ignores the instructions and earlier turns', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'text', text: 'Echo: first' }] },
      { role: 'user', content: [{ type: 'text', text: 'second one' }] },
    ];
    const result = await generateText({ model: sandboxModel('echo'), instructions: 'Be brief.', messages });
    assert.equal(result.text, 'Echo: second one');
  });

  it('calls a tool the input names, then reports its result', async () => {
    calls.length = 0;
    const result = await generateText({ model: sandboxModel('echo'), prompt: 'Please use LOOKUP: Ada Lovelace', tools, stopWhen: stepCountIs(5) });
    assert.deepEqual(calls, [{ query: 'Ada Lovelace', limit: 2, exact: true, kind: 'person' }]);
    assert.equal(result.steps.length, 2);
    assert.equal(result.steps[0]!.finishReason, 'tool-calls');
    assert.equal(result.steps[0]!.toolCalls[0]!.toolName, 'lookup');
    assert.equal(result.text, 'The lookup tool returned: {"found":1,"name":"Ada"}');
    assert.equal(result.finishReason, 'stop');
    // The usage of the whole run is the sum of its steps.
    assert.equal(result.usage.inputTokens, result.steps.reduce((n, s) => n + (s.usage.inputTokens ?? 0), 0));
    // Every step's messages (result.response.messages holds the last step's only).
    const roles = result.responseMessages.map((m) => m.role);
    assert.deepEqual(roles, ['assistant', 'tool', 'assistant']);
  });

  it('does not call a tool named only as part of a word, or when none is offered', async () => {
    const a = await generateText({ model: sandboxModel('echo'), prompt: 'lookups are fun', tools });
    assert.equal(a.text, 'Echo: lookups are fun');
    const b = await generateText({ model: sandboxModel('echo'), prompt: 'lookup Ada' });
    assert.equal(b.text, 'Echo: lookup Ada');
  });

  it('answers the same prompt the same way', async () => {
    const run = () => generateText({ model: sandboxModel('echo'), instructions: 'x', prompt: 'lookup Grace', tools, stopWhen: stepCountIs(1) });
    const [a, b] = await Promise.all([run(), run()]);
    assert.deepEqual(a.steps[0]!.toolCalls, b.steps[0]!.toolCalls);
    assert.deepEqual(a.usage, b.usage);
    assert.match(a.steps[0]!.toolCalls[0]!.toolCallId, /^call_[0-9a-f]{24}$/);
  });

  it('streams several text deltas, with usage', async () => {
    const result = streamText({ model: sandboxModel('echo'), prompt: 'one two three four' });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'text-delta') deltas.push(part.text);
    assert.ok(deltas.length >= 3, `deltas: ${JSON.stringify(deltas)}`);
    assert.equal(deltas.join(''), 'Echo: one two three four');
    const usage = await result.totalUsage;
    assert.ok((usage.inputTokens ?? 0) > 0 && (usage.outputTokens ?? 0) > 0);
  });

  it('streams tool calls and results', async () => {
    const result = streamText({ model: sandboxModel('echo'), prompt: 'lookup Ada', tools, stopWhen: stepCountIs(5) });
    const types: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') assert.deepEqual(part.input, { query: 'Ada', limit: 2, exact: true, kind: 'person' });
      if (part.type === 'tool-result') assert.deepEqual(part.output, { found: 1, name: 'Ada' });
      if (['tool-call', 'tool-result', 'finish-step', 'text-delta'].includes(part.type)) types.push(part.type);
    }
    assert.deepEqual(types.slice(0, 3), ['tool-call', 'tool-result', 'finish-step']);
    assert.equal(await result.text, 'The lookup tool returned: {"found":1,"name":"Ada"}');
    assert.equal((await result.steps).length, 2);
  });

  it('reports a failing tool (tool-error part) as failed', async () => {
    const failing = {
      broken: tool({
        inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }),
        execute: async (): Promise<string> => {
          throw new Error('kaput');
        },
      }),
    };
    const result = streamText({ model: sandboxModel('echo'), prompt: 'try broken', tools: failing, stopWhen: stepCountIs(5) });
    let error: unknown;
    for await (const part of result.fullStream) if (part.type === 'tool-error') error = part.error;
    assert.equal((error as Error).message, 'kaput');
    assert.equal(await result.text, 'The broken tool failed: "Error: kaput"');
  });

  it('stops when aborted mid-stream (sandbox/slow)', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const result = streamText({ model: sandboxModel('slow'), prompt: 'a b c d e f g h i j', abortSignal: controller.signal });
    const deltas: string[] = [];
    let aborted = false;
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta' && deltas.push(part.text) === 2) controller.abort();
      if (part.type === 'abort') aborted = true;
    }
    assert.ok(aborted, 'an abort part');
    assert.ok(deltas.length < 5, `deltas after the abort: ${deltas.length}`);
    assert.ok(Date.now() - started < 1500);
  });

  it('rejects generateText that is already aborted', async () => {
    await assert.rejects(generateText({ model: sandboxModel('echo'), prompt: 'x', abortSignal: AbortSignal.abort() }), (e: Error) => e.name === 'AbortError');
  });
});

describe('sandbox helpers', () => {
  it('matches whole words only', () => {
    assert.equal(namesTool('call get_weather now', 'get_weather'), true);
    assert.equal(namesTool('call GET_WEATHER.', 'get_weather'), true);
    assert.equal(namesTool('call get_weathers', 'get_weather'), false);
    assert.equal(namesTool('xget_weather', 'get_weather'), false);
  });

  it('makes arguments from a schema', () => {
    const schema = {
      type: 'object' as const,
      properties: {
        s: { type: 'string' as const, maxLength: 3 },
        n: { type: 'number' as const },
        o: { type: 'object' as const, properties: { b: { type: 'boolean' as const }, a: { type: 'array' as const } } },
        u: { type: ['null', 'integer'] as ('null' | 'integer')[], minimum: 5 },
      },
      required: ['s', 'extra'],
    };
    assert.deepEqual(argumentsFor(schema, 'subject'), { s: 'sub', extra: 'subject', n: 1, o: { b: true, a: [] }, u: 5 });
  });
});
