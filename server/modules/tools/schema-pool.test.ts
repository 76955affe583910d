import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { heavySchema } from '../../../test/fakes/schemas';
import { compileSchema, MAX_WAITING_PER_WORKSPACE, SCHEMA_THREADS, setSchemaBudgetForTests, validateArguments, type SchemaOutcome } from './schema-pool';

// The schema pool (docs/security.md): compiles and validates in worker threads, patterns on
// RE2, a hard budget per task, one line per workspace served in turn.

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
let unique = 0;
const fresh = () => `t${process.pid}-${++unique}`;

after(() => setSchemaBudgetForTests(null));

describe('compileSchema', () => {
  it('compiles a schema (draft 2020-12 or draft-07) and refuses one that does not compile, with ajv’s reason', async () => {
    assert.deepEqual(await compileSchema('ws_a', object({ id: { type: 'string' } })), { ok: true });
    assert.deepEqual(await compileSchema('ws_a', { $schema: 'http://json-schema.org/draft-07/schema#', ...object({ id: { type: 'string' } }) }), { ok: true });
    const bad = await compileSchema('ws_a', object({ id: { type: 'nonsense' } }));
    assert.equal(bad.ok, false);
    assert.match((bad as { message: string }).message, /schema is invalid/);
  });

  it('runs patterns on RE2: lookahead and backreferences are refused with a reason', async () => {
    for (const pattern of ['^(?=a)b', '(a)\\1']) {
      const outcome = await compileSchema('ws_a', object({ id: { type: 'string', pattern } }));
      assert.equal(outcome.ok, false);
      assert.match((outcome as { message: string }).message, /is not supported .*RE2/);
    }
    assert.deepEqual(await compileSchema('ws_a', object({}, { patternProperties: { '^\\p{L}+$': { type: 'string' } } })), { ok: true });
  });

  it('an 11 KB schema referring 200 times to one definition compiles in well under a second (ajv would inline it 200 times: 14 s)', async () => {
    const definition = object(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, { type: 'string', minLength: 1 }])));
    const refs = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { $ref: '#/$defs/A' }]));
    // The budget raised for this one: under the whole suite (2 cores, 4 test files at once) the
    // thread's ~100–300 ms of work can take a second of wall time, and the point here is that
    // nothing is inlined 200 times (14 s), not the loaded machine's wall clock.
    setSchemaBudgetForTests(10_000);
    const started = performance.now();
    assert.deepEqual(await compileSchema('ws_a', { ...object(refs), $defs: { A: definition }, description: fresh() }), { ok: true });
    assert.ok(performance.now() - started < 5_000, `${performance.now() - started} ms`);
    setSchemaBudgetForTests(null);
  });
});

describe('validateArguments', () => {
  const schema = object({ orderId: { type: 'string', pattern: '^[0-9]+$' }, qty: { type: 'integer' } }, { required: ['orderId'], additionalProperties: false });

  it('passes matching arguments and names the first mismatch', async () => {
    assert.deepEqual(await validateArguments('ws_a', schema, { orderId: '1042', qty: 2 }), { ok: true });
    assert.deepEqual(await validateArguments('ws_a', schema, { orderId: 'abc' }), { ok: false, reason: 'invalid', message: '/orderId must match pattern "^[0-9]+$"' });
    assert.deepEqual(await validateArguments('ws_a', schema, {}), { ok: false, reason: 'invalid', message: "/ must have required property 'orderId'" });
    assert.deepEqual(await validateArguments('ws_a', schema, { orderId: '1', x: 1 }), { ok: false, reason: 'invalid', message: "/ must NOT have additional properties ('x')" });
  });

  it('a catastrophic pattern against an evil string answers at once (the RegExp engine took 5 s for 27 characters)', async () => {
    const evil = object({ s: { type: 'string', pattern: '^(a+)+$' } });
    const started = performance.now();
    const outcome = await validateArguments('ws_a', evil, { s: `${'a'.repeat(50_000)}b` });
    assert.equal(outcome.ok, false);
    assert.ok(performance.now() - started < 500, `${performance.now() - started} ms`);
  });

  it('validators keep working from the cache: recursive $ref and $dynamicRef', async () => {
    const tree = { $id: 'https://schemas.example.com/tree', ...object({ name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, { required: ['name'] }) };
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(await validateArguments('ws_a', tree, { name: 'a', children: [{ name: 'b', children: [] }] }), { ok: true });
      assert.equal((await validateArguments('ws_a', tree, { name: 'a', children: [{ children: [] }] })).ok, false);
    }
    const dynamic = {
      $id: 'https://schemas.example.com/dynamic-tree',
      $dynamicAnchor: 'node',
      ...object({ data: true, children: { type: 'array', items: { $dynamicRef: '#node' } } }, { unevaluatedProperties: false }),
    };
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(await validateArguments('ws_a', dynamic, { data: 1, children: [{ data: 2, children: [] }] }), { ok: true });
      assert.equal((await validateArguments('ws_a', dynamic, { data: 1, children: [{ children: 'no' }] })).ok, false);
      assert.equal((await validateArguments('ws_a', dynamic, { children: [{ stray: 1 }] })).ok, false, 'unevaluatedProperties holds');
    }
  });
});

describe('limits', () => {
  it('a task past its budget is stopped (its thread terminated) and the next one runs on a fresh thread', async () => {
    setSchemaBudgetForTests(0); // every task is past it, however fast the machine compiles
    try {
      assert.deepEqual(await compileSchema('ws_b', heavySchema(fresh())), { ok: false, reason: 'too_slow' });
    } finally {
      setSchemaBudgetForTests(null);
    }
    assert.deepEqual(await compileSchema('ws_b', heavySchema(fresh())), { ok: true });
  });

  it('one workspace’s backlog waits in its own line: another workspace’s task runs next, and past 64 waiting the workspace is busy', async () => {
    const finished: string[] = [];
    const track = (label: string, p: Promise<SchemaOutcome>) => p.then((outcome) => (finished.push(label), outcome));
    const flood = Array.from({ length: SCHEMA_THREADS + MAX_WAITING_PER_WORKSPACE }, (_, i) => track(`a${i}`, compileSchema('ws_flood', heavySchema(fresh()))));
    const refused = await compileSchema('ws_flood', heavySchema(fresh()));
    assert.deepEqual(refused, { ok: false, reason: 'busy' });
    const other = await track('other', compileSchema('ws_other', heavySchema(fresh())));
    assert.deepEqual(other, { ok: true });
    assert.ok(finished.indexOf('other') <= 2 * SCHEMA_THREADS, `served after ${finished.indexOf('other')} of the flood`);
    for (const outcome of await Promise.all(flood)) assert.deepEqual(outcome, { ok: true });
  });

  it('a validation cancelled while it waits leaves the line without running', async () => {
    const busy = Array.from({ length: SCHEMA_THREADS + 2 }, () => compileSchema('ws_c', heavySchema(fresh())));
    const controller = new AbortController();
    const waiting = validateArguments('ws_c', object({}), {}, controller.signal);
    controller.abort(new Error('cancelled'));
    await assert.rejects(waiting, /cancelled/);
    await Promise.all(busy);
  });
});
