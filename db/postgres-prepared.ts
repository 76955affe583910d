import type postgres from 'postgres';

// drizzle's statements as named prepared statements on PostgreSQL, as on PGlite
// (db/pglite-prepared.ts). drizzle runs each statement through postgres.js's `unsafe()`, which
// does not prepare: postgres.js then sends every statement with parameters twice — Parse and
// Describe first, to learn the parameters' types, and Bind and Execute once they are answered —
// two round trips and two socket writes per statement, and a parse and plan by the server each
// time. Prepared (`prepare: true`), a statement's text is parsed once per connection and each
// later run is one round trip. postgres.js keeps a connection's statements for its life
// (`max_lifetime`: 30–60 min) and prepares again when a schema change invalidates one.
//
// Statements with more than MAX_PREPARED_PARAMS parameters (bulk inserts, whose text changes
// with their row count) stay unprepared: the server would keep a plan for each row count.

export const MAX_PREPARED_PARAMS = 64;

type Unsafe = postgres.Sql['unsafe'];

/** The methods whose clients or statements the wrapper changes. */
const WRAPPED = new Set<PropertyKey>(['unsafe', 'begin', 'savepoint', 'reserve']);

/** The client with `unsafe()` preparing statements (and its transactions', reserved connections' and savepoints' clients too). */
export function preparing<C extends object>(client: C): C {
  // Each method is wrapped once per client (per function: a savepoint may be set later), not on
  // every access — `unsafe` is on every query's path.
  const made = new Map<PropertyKey, { of: unknown; wrapped: unknown }>();
  return new Proxy(client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (!WRAPPED.has(prop)) return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      const known = made.get(prop);
      if (known && known.of === value) return known.wrapped;
      const wrapped = wrap(target, prop, value);
      made.set(prop, { of: value, wrapped });
      return wrapped;
    },
  });
}

function wrap(target: object, prop: PropertyKey, value: unknown): unknown {
  if (prop === 'unsafe') {
    const unsafe = value as Unsafe;
    return (query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions) =>
      Array.isArray(args) && args.length > 0 && args.length <= MAX_PREPARED_PARAMS
        ? unsafe.call(target, query, args as postgres.ParameterOrJSON<never>[], { ...options, prepare: true })
        : unsafe.call(target, query, args as postgres.ParameterOrJSON<never>[], options);
  }
  if (prop === 'reserve') {
    const reserve = value as () => Promise<object>;
    return async () => preparing(await reserve.call(target));
  }
  // begin(options?, cb), savepoint(name?, cb): the callback gets a preparing client.
  const open = value as (...a: unknown[]) => unknown;
  return (...a: unknown[]) => {
    const at = a.findIndex((x) => typeof x === 'function');
    if (at !== -1) {
      const cb = a[at] as (c: object) => unknown;
      a[at] = (c: object) => cb(preparing(c));
    }
    return open.apply(target, a);
  };
}
