import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { createKeyInput } from '../../modules/keys/schemas';
import { findNul, inputError } from './input-errors';

/** Validates like a procedure would and maps the failure the way the API reports it. */
function errorFor(schema: z.ZodType, input: unknown) {
  const r = schema.safeParse(input);
  assert.equal(r.success, false, 'expected the input to be refused');
  const err = inputError(r.error!.issues, input);
  assert.equal(err.status, 400);
  assert.equal(err.type, 'invalid_request_error');
  return { code: err.code, param: err.param };
}

const nested = z.strictObject({
  name: z.string(),
  metadata: z.strictObject({ owner: z.string().max(5) }).optional(),
  tools: z.array(z.strictObject({ url: z.url() })).optional(),
});

describe('input errors', () => {
  it('report a missing field as missing_required_field naming it', () => {
    assert.deepEqual(errorFor(createKeyInput, {}), { code: 'missing_required_field', param: 'name' });
    assert.deepEqual(errorFor(nested, { metadata: { owner: 'x' } }), { code: 'missing_required_field', param: 'name' });
    assert.deepEqual(errorFor(nested, { name: 'a', metadata: {} }), { code: 'missing_required_field', param: 'metadata.owner' });
  });

  it('report a field of the wrong type or value as invalid_parameter naming it', () => {
    assert.deepEqual(errorFor(createKeyInput, { name: 5 }), { code: 'invalid_parameter', param: 'name' });
    assert.deepEqual(errorFor(createKeyInput, { name: 'x'.repeat(101) }), { code: 'invalid_parameter', param: 'name' });
    assert.deepEqual(errorFor(createKeyInput, { name: '   ' }), { code: 'invalid_parameter', param: 'name' });
    assert.deepEqual(errorFor(createKeyInput, { name: 'a', environment: 'prod' }), { code: 'invalid_parameter', param: 'environment' });
    assert.deepEqual(errorFor(createKeyInput, { name: 'a', expiresAt: 'tomorrow' }), { code: 'invalid_parameter', param: 'expiresAt' });
    assert.deepEqual(errorFor(createKeyInput, { name: null }), { code: 'invalid_parameter', param: 'name' });
  });

  it('name the list for a bad element of a list of values (unknown scope → scopes)', () => {
    assert.deepEqual(errorFor(createKeyInput, { name: 'a', scopes: ['agents:read', 'root'] }), {
      code: 'invalid_parameter',
      param: 'scopes',
    });
    assert.deepEqual(errorFor(createKeyInput, { name: 'a', scopes: 'agents:read' }), { code: 'invalid_parameter', param: 'scopes' });
  });

  it('use dotted paths for nested fields', () => {
    assert.deepEqual(errorFor(nested, { name: 'a', metadata: { owner: 'toolong' } }), {
      code: 'invalid_parameter',
      param: 'metadata.owner',
    });
    assert.deepEqual(errorFor(nested, { name: 'a', tools: [{ url: 'https://x.test' }, { url: 'nope' }] }), {
      code: 'invalid_parameter',
      param: 'tools.1.url',
    });
  });

  it('report fields nobody may set as unknown_parameter (no mass assignment)', () => {
    for (const field of ['id', 'workspaceId', 'createdAt', 'key', 'prefix', 'revokedAt']) {
      assert.deepEqual(errorFor(createKeyInput, { name: 'a', [field]: 'x' }), { code: 'unknown_parameter', param: field });
    }
    assert.deepEqual(errorFor(nested, { name: 'a', metadata: { owner: 'x', admin: true } }), {
      code: 'unknown_parameter',
      param: 'metadata.admin',
    });
  });

  it('has no param when the input as a whole is wrong', () => {
    const err = inputError(z.strictObject({ a: z.string() }).safeParse('text').error!.issues, 'text');
    assert.equal(err.code, 'invalid_parameter');
    assert.equal(err.param, undefined);
  });
});

describe('findNul', () => {
  it('names the dotted path of the first string with a NUL, or null', () => {
    assert.equal(findNul({ name: 'ok', meta: { a: 'x\u0000y' } }), 'meta.a');
    assert.equal(findNul({ list: ['a', 'b\u0000'] }), 'list.1');
    assert.equal(findNul('\u0000'), '');
    assert.equal(findNul({ name: 'fine', n: 3, b: true, z: null }), null);
  });

  it('walks any depth without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(findNul({ deep })?.split('.').length, 100_001);
  });
});
