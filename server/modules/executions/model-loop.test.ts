import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonSchema, tool, type ToolSet } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { AwaitedCall } from '../../../db/schema';
import { runModelLoop } from './model-loop';

// The model loop's pause for approval (docs/approvals.md), driven with a scripted model: a step
// whose calls include one that needs a decision runs the others and stops; resumed with the
// decisions, it runs the approved call (with the decided arguments), answers the denied one,
// never runs again what ran before the pause, and tells the model the arguments used.

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const finish = (reason: 'tool-calls' | 'stop'): LanguageModelV4StreamPart => ({ type: 'finish', finishReason: { unified: reason, raw: reason }, usage }) as never;
const call = (id: string, name: string, input: unknown): LanguageModelV4StreamPart => ({ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) });
const text = (t: string): LanguageModelV4StreamPart[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: t },
  { type: 'text-end', id: 't' },
];

/** A model answering each call with the next script (and recording the prompts it was sent). */
function scripted(...steps: LanguageModelV4StreamPart[][]) {
  let n = 0;
  return new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(steps[n++] ?? [...text('?'), finish('stop')]) }) });
}

function tools(ran: { name: string; input: unknown }[]): ToolSet {
  const make = (name: string) =>
    tool({
      description: name,
      inputSchema: jsonSchema({ type: 'object', properties: { q: { type: 'string' } } }),
      execute: async (input: unknown) => {
        ran.push({ name, input });
        return { ok: name, input };
      },
    });
  return { refund: make('refund'), lookup: make('lookup'), wipe: make('wipe') };
}

const noEvents = { text: async () => {}, toolCall: async () => {}, toolResult: async () => {} };
const base = (model: MockLanguageModelV4, ran: { name: string; input: unknown }[]) => ({
  model,
  instructions: null,
  history: [{ role: 'user' as const, content: 'refund, lookup and wipe' }],
  tools: tools(ran),
  maxSteps: 5,
  temperature: null,
  signal: new AbortController().signal,
  needsApproval: (name: string) => name === 'refund' || name === 'wipe',
});

describe('the model loop’s pause for approval', () => {
  it('runs the calls that need no decision, stops on the others; resumed, runs the approved one once with its arguments and answers the denied one', async () => {
    const ran: { name: string; input: unknown }[] = [];
    const first = scripted([call('c1', 'refund', { q: 'order 7' }), call('c2', 'lookup', { q: 'order 7' }), call('c3', 'wipe', { q: 'all' }), finish('tool-calls')]);
    const paused = await runModelLoop(base(first, ran), noEvents);
    assert.deepEqual(ran, [{ name: 'lookup', input: { q: 'order 7' } }], 'only the call that needs no decision ran');
    assert.deepEqual(paused.paused?.calls.map((c) => c.id), ['c1', 'c3']);
    assert.deepEqual(paused.paused?.results.map((r) => r.id), ['c2']);
    assert.equal(paused.steps.length, 1);
    assert.deepEqual(paused.responseMessages, [], 'the paused step’s messages are made when it resumes');

    const at = new Date().toISOString();
    const decided = (id: string, tool: string, args: unknown, approved: boolean, reason: string | null): AwaitedCall => ({
      id,
      tool,
      arguments: args,
      parameters: null,
      requestedAt: at,
      expiresAt: at,
      decision: { approved, reason, arguments: approved ? { q: 'order 8' } : args, decidedBy: { type: 'system' }, decidedAt: at },
    });
    const second = scripted([...text('Refunded order 8.'), finish('stop')]);
    const resumed = await runModelLoop(
      {
        ...base(second, ran),
        resume: {
          steps: paused.steps,
          messages: paused.responseMessages,
          step: paused.paused!.step,
          results: paused.paused!.results,
          calls: [decided('c1', 'refund', { q: 'order 7' }, true, null), decided('c3', 'wipe', { q: 'all' }, false, 'no')],
        },
      },
      noEvents,
    );
    assert.deepEqual(ran, [{ name: 'lookup', input: { q: 'order 7' } }, { name: 'refund', input: { q: 'order 8' } }], 'lookup not again; refund once, with the decided arguments');
    assert.equal(resumed.failure, null);
    assert.equal(resumed.steps.length, 2);
    assert.equal(resumed.steps[1]!.text, 'Refunded order 8.');
    const step = resumed.steps[0]!;
    assert.deepEqual(step.toolResults.map((r) => r.id), ['c2', 'c1', 'c3']);
    assert.deepEqual(step.toolResults.find((r) => r.id === 'c3')!.result, { denied: true, reason: 'no' });
    assert.equal(step.toolCalls.find((c) => c.id === 'c1')!.approval?.approved, true);

    // What the model was sent on the resumed call: its calls (the refund with the arguments used) and the three results, in its order.
    const prompt = second.doStreamCalls[0]!.prompt;
    const assistant = prompt.find((m) => m.role === 'assistant')!;
    const calls = (assistant.content as { type: string; toolCallId?: string; input?: unknown }[]).filter((p) => p.type === 'tool-call');
    assert.deepEqual(calls.map((c) => [c.toolCallId, c.input]), [['c1', { q: 'order 8' }], ['c2', { q: 'order 7' }], ['c3', { q: 'all' }]]);
    const results = prompt.find((m) => m.role === 'tool')!.content as { toolCallId: string }[];
    assert.deepEqual(results.map((r) => r.toolCallId), ['c1', 'c2', 'c3']);
  });

  it('stops after the step that passes maxTotalTokens, before another model call', async () => {
    const ran: { name: string; input: unknown }[] = [];
    const model = scripted([call('c1', 'lookup', { q: 'x' }), finish('tool-calls')], [...text('never'), finish('stop')]);
    const result = await runModelLoop({ ...base(model, ran), maxTotalTokens: 14 }, noEvents);
    assert.deepEqual(result.overTokens, { used: 15, limit: 14 });
    assert.equal(model.doStreamCalls.length, 1);
    assert.equal(ran.length, 1);
  });
});
