import { types, type PGlite } from '@electric-sql/pglite';

// PGlite merges a query's own `parsers` option into its table of ~318 type parsers on every
// query (`{...instance parsers, ...option}`): ~85 µs of CPU per statement on this machine, in
// the one thread that also runs the database. drizzle passes such an option with every query
// (it reads dates, intervals and numeric arrays as text and converts them itself), so an
// execution's ~27 statements spent ~2 ms on it. Instead the instance's table carries drizzle's
// text parsers, drizzle's queries go without the option (`forDrizzle`), and the one other user
// of the instance's parsed rows, the job queue, asks for PGlite's usual parsing of those types
// (`withDefaultParsers`): the merge then happens on its queries only, as before.

/** The types drizzle reads as text (drizzle-orm/pglite/session.js). */
const TEXT_TYPES = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182];

type Parser = (value: string) => unknown;
type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<number, Parser> } & Record<string, unknown>;
type Queryable = Pick<PGlite, 'query' | 'exec'> & { transaction?: PGlite['transaction']; exclusive?: <R>(fn: (client: Queryable) => Promise<R>) => Promise<R> };

/** Makes the instance read drizzle's text types as text; returns PGlite's usual parsers of those types. */
export function adoptDrizzleParsers(pglite: PGlite): Record<number, Parser> {
  const table = (pglite as unknown as { parsers: Record<number, Parser> }).parsers;
  const defaults: Record<number, Parser> = {};
  for (const type of TEXT_TYPES) if (table[type]) defaults[type] = table[type];
  const text: Record<number, Parser> = Object.fromEntries(TEXT_TYPES.map((type) => [type, (value: string) => value]));
  (pglite as unknown as { parsers: Record<number, Parser> }).parsers = { ...table, ...text };
  return defaults;
}

const withoutParsers = (options?: QueryOptions) => {
  if (!options?.parsers) return options;
  const { parsers: _parsers, ...rest } = options;
  return rest;
};

/** Runs a call into the database when its turn comes (db/lanes.ts); a transaction's own statements go straight through. */
type Turn = <R>(call: () => Promise<R>) => Promise<R>;
const now: Turn = (call) => call();

/**
 * The instance (or a transaction of it) as drizzle should see it: its queries without a `parsers`
 * option, each call of the instance itself taken in turn (`turn`).
 */
export function forDrizzle<T extends Queryable>(client: T, turn: Turn = now): T {
  // Made once per client (a query reads `query` each time), not on every property read.
  const own: Record<PropertyKey, unknown> = {
    query: (text: string, params?: unknown[], options?: QueryOptions) => turn(() => client.query(text, params, withoutParsers(options))),
    exec: (text: string, options?: QueryOptions) => turn(() => client.exec(text, withoutParsers(options))),
  };
  if (client.transaction) own.transaction = <R>(fn: (tx: Queryable) => Promise<R>) => turn(() => client.transaction!((tx) => fn(forDrizzle(tx as Queryable))));
  if (client.exclusive) own.exclusive = <R>(fn: (c: Queryable) => Promise<R>) => turn(() => client.exclusive!((c) => fn(forDrizzle(c))));
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (Object.hasOwn(own, prop)) return own[prop];
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The instance as a client expecting PGlite's usual parsing (dates as Date…) should see it. */
export function withDefaultParsers(pglite: PGlite, defaults: Record<number, Parser>, turn: Turn = now): Pick<PGlite, 'query' | 'exec' | 'listen'> {
  return {
    query: (text: string, params?: unknown[], options?: QueryOptions) => turn(() => pglite.query(text, params, { ...options, parsers: { ...defaults, ...options?.parsers } })),
    exec: (text: string, options?: QueryOptions) => turn(() => pglite.exec(text, { ...options, parsers: { ...defaults, ...options?.parsers } })),
    listen: pglite.listen.bind(pglite),
  } as Pick<PGlite, 'query' | 'exec' | 'listen'>;
}
