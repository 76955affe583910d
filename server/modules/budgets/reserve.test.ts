import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateTokens } from './reserve';

// The prompt's estimate a reservation starts from (docs/budgets.md, "Reservations"): what the
// model reads, a character in three, never the JSON wrapping of messages.

describe('estimateTokens', () => {
  it('counts the text the model reads, a token for three characters and four a message', () => {
    assert.equal(estimateTokens({ instructions: null, messages: [{ role: 'user', content: 'hello' }], tools: null }), 2 + 8);
    assert.equal(estimateTokens({ instructions: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], tools: null }), Math.ceil(14 / 3) + 8);
  });

  it('counts tool calls, their results and the tools’ definitions', () => {
    const call = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: { q: 'x' } }] };
    const result = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'lookup', output: { type: 'json', value: { found: 1 } } }] };
    const user = { role: 'user', content: 'hi' };
    const bare = estimateTokens({ instructions: null, messages: [user], tools: null });
    const more = estimateTokens({ instructions: null, messages: [user, call, result], tools: [['lookup', 'Looks up', { type: 'object' }]] });
    const chars = 'lookup'.length * 2 + JSON.stringify({ q: 'x' }).length + JSON.stringify({ found: 1 }).length + JSON.stringify([['lookup', 'Looks up', { type: 'object' }]]).length;
    assert.equal(more - bare, Math.ceil((2 + chars) / 3) - Math.ceil(2 / 3) + 8);
  });

  it('is on the high side of a model counting four characters a token', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
    assert.ok(estimateTokens({ instructions: null, messages: [{ role: 'user', content: text }], tools: null }) >= Math.ceil(text.length / 4));
  });
});
