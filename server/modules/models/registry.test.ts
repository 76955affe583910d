import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resetProviders, resolveModel } from './registry';

// Model objects are made once per model id and shared by the runs (their constructor is not
// free), with a bound on how many ids are kept.

describe('the model registry', () => {
  it('gives every run of a model id the same model object, another id its own', () => {
    resetProviders();
    const a = resolveModel('sandbox/fast', { environment: 'live' }).model;
    assert.equal(resolveModel('sandbox/fast', { environment: 'live' }).model, a);
    // A test-mode run stands in the sandbox under the same id: the same object too.
    assert.equal(resolveModel('openai/fast', { environment: 'test' }).model, a);
    assert.notEqual(resolveModel('sandbox/slow', { environment: 'live' }).model, a);
  });

  it('keeps a bounded number of model ids (an agent per id cannot grow it without end)', () => {
    resetProviders();
    const first = resolveModel('sandbox/m0', { environment: 'live' }).model;
    for (let i = 1; i <= 256; i++) resolveModel(`sandbox/m${i}`, { environment: 'live' });
    // Past the bound the cache started over: m0 is made again.
    assert.notEqual(resolveModel('sandbox/m0', { environment: 'live' }).model, first);
  });
});
