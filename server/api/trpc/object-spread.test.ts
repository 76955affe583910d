import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';

// tRPC's object spread helper with patches/@trpc+server+*.patch (docs/platform-notes.md, "tRPC's
// object spread"): native spread where it does what the helper does, the helper's own way
// elsewhere. Compared here with the helper as tRPC ships it (oxc's objectSpread2, copied below).

function toPropertyKey(t: unknown) {
  return typeof t === 'symbol' ? t : String(t);
}
function definingProperty(e: object, r: PropertyKey, t: unknown) {
  const key = toPropertyKey(r);
  if (key in e) Object.defineProperty(e, key, { value: t, enumerable: true, configurable: true, writable: true });
  else (e as Record<PropertyKey, unknown>)[key] = t;
}
function ownKeys(e: object, enumerableOnly: boolean) {
  const keys: PropertyKey[] = Object.keys(e);
  let symbols = Object.getOwnPropertySymbols(e);
  if (enumerableOnly) symbols = symbols.filter((s) => Object.getOwnPropertyDescriptor(e, s)!.enumerable);
  return keys.concat(symbols);
}
/** The helper as shipped. */
function shipped(e: object, ...sources: unknown[]) {
  sources.forEach((source, i) => {
    const t = (source ?? {}) as Record<PropertyKey, unknown>;
    if (i % 2 === 0) ownKeys(Object(t), true).forEach((k) => definingProperty(e, k, t[k as string]));
    else Object.defineProperties(e, Object.getOwnPropertyDescriptors(t));
  });
  return e;
}

type Spread = (e: object, ...sources: unknown[]) => object;

async function patched(): Promise<Spread> {
  const dist = path.dirname(createRequire(import.meta.url).resolve('@trpc/server'));
  const file = fs.readdirSync(dist).find((f) => /^getErrorShape-.*\.mjs$/.test(f));
  assert.ok(file, `no getErrorShape chunk in ${dist}`);
  const mod = (await import(pathToFileURL(path.join(dist, file)).href)) as Record<string, unknown>;
  const fn = Object.values(mod).find((v) => typeof v === 'function' && v.name === '_objectSpread2') as Spread | undefined;
  assert.ok(fn, 'the chunk exports _objectSpread2');
  return fn;
}

/** Everything an object holds: its keys in order, each as a descriptor (getters by identity). */
const described = (o: object) => Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]);

describe("tRPC's object spread (patched)", () => {
  it('is patched', async () => {
    const spread = await patched();
    assert.match(spread.toString(), /enumerableData/, 'patches/@trpc+server is not applied (npm ci runs patch-package)');
  });

  it('answers what the shipped helper does, for the sources tRPC passes and any other', async () => {
    const spread = await patched();
    const sym = Symbol('s');
    const hidden = Symbol('hidden');
    const getter = { get lazy() { return 42; } };
    const withHidden = Object.defineProperty({ a: 1 }, 'secret', { value: 2, enumerable: false });
    Object.defineProperty(withHidden, hidden, { value: 3, enumerable: false });
    const proto = JSON.parse('{"__proto__": {"polluted": true}, "b": 2}') as object;
    const next = () => 1;
    const sources: unknown[][] = [
      [{ ctx: { a: 1 }, type: 'query', path: 'agents.list' }, {}, { meta: { x: 1 }, input: { limit: 20 }, next }],
      [{ a: 1 }, { b: 2 }],
      [{ a: 1, b: 2 }, {}, { a: 3 }],
      [null, undefined, { a: 1 }],
      [{ [sym]: 1, a: 2 }, { [sym]: 3 }],
      [getter, {}],
      [{ a: 1 }, getter],
      [{ a: 1 }, getter, { lazy: 'later', c: 3 }],
      [withHidden, {}],
      [{ a: 1 }, withHidden],
      [proto, {}],
      [{ a: 1 }, proto],
      ['ab', {}],
      [{ a: 1 }, 'cd'],
      [{ x: 1 }, {}, { y: 2 }, {}, { z: 3 }],
    ];
    for (const args of sources) {
      for (const start of [() => ({}), () => ({ first: true })]) {
        const want = shipped(start(), ...args);
        const got = spread(start(), ...args);
        assert.deepEqual(described(got), described(want), `sources ${String(args.map((a) => JSON.stringify(a)))}`);
        assert.equal(Object.getPrototypeOf(got), Object.prototype);
      }
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
