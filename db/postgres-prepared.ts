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
//
// The client is changed in place, not wrapped: its `unsafe` becomes one function shared by every
// client (the pool's, each transaction's, each reserved connection's). A Proxy per client with a
// wrapper per client made drizzle's hot call site see a new function with each transaction, and a
// process that had run a few transactions then spent a third more CPU on every later statement
// for good (docs/benchmark.md, "Issue 49, eighteenth session").

export const MAX_PREPARED_PARAMS = 64;

const ORIGINAL = Symbol('aas.db.unsafe');

type Unsafe = (query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions) => unknown;
type Open = (...a: unknown[]) => unknown;
interface Client {
  unsafe: Unsafe;
  [ORIGINAL]?: Unsafe;
  begin?: Open;
  savepoint?: Open;
  reserve?: () => Promise<object>;
}

/** Every client's `unsafe`: prepared when it has parameters, and not too many; `this` is the client. */
function preparedUnsafe(this: Client, query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions): unknown {
  const unsafe = this[ORIGINAL]!;
  if (Array.isArray(args) && args.length > 0 && args.length <= MAX_PREPARED_PARAMS) return unsafe(query, args, { ...options, prepare: true });
  // eslint-disable-next-line prefer-rest-params -- postgres.js tells `unsafe(query, options)` apart by the number of arguments
  return unsafe.apply(this, arguments as unknown as Parameters<Unsafe>);
}

/** The callback of `begin(options?, cb)` or `savepoint(name?, cb)`, given a preparing client. */
function preparingCallback(open: Open): Open {
  return function (this: unknown, ...a: unknown[]) {
    const at = a.findIndex((x) => typeof x === 'function');
    if (at !== -1) {
      const cb = a[at] as (c: object) => unknown;
      a[at] = (c: object) => cb(preparing(c));
    }
    return open.apply(this, a);
  };
}

/** `client` with `unsafe()` preparing statements (and its transactions', reserved connections' and savepoints' clients too). Changes `client` in place; returns it. */
export function preparing<C extends object>(client: C): C {
  const c = client as unknown as Client;
  if (c[ORIGINAL]) return client;
  c[ORIGINAL] = c.unsafe;
  c.unsafe = preparedUnsafe;
  if (typeof c.begin === 'function') c.begin = preparingCallback(c.begin);
  if (typeof c.savepoint === 'function') c.savepoint = preparingCallback(c.savepoint);
  const reserve = c.reserve;
  if (typeof reserve === 'function') c.reserve = async () => preparing(await reserve.call(client));
  return client;
}
