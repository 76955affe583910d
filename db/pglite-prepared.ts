import { parse, protocol, type PGlite } from '@electric-sql/pglite';

// Named prepared statements for PGlite (docs/benchmark.md, "The embedded database's share").
// PGlite's `query` runs every statement as an unnamed one: parse, describe, bind (which plans
// it), describe, execute and sync, each a call into the database. Our statements are the same
// few hundred texts over and over, so here each text is parsed and described once, as a named
// statement, and then only bound and executed, in one call; PostgreSQL plans a named
// statement's executions as usual (a custom plan for the first five, then its generic plan when
// that is no worse). Measured on an embedded `wait` run: 23 statements cost 13.7 ms inside PGlite
// unnamed and 6.3 ms named; the process's CPU per run fell from 33.6 to 19.7 ms
// (scripts/bench/statements.ts). The rows' description is kept from that Describe too, not asked
// for again at each execution (a Describe of the portal, and its parsing): 0.26–0.37 ms less CPU
// an embedded `wait` run (scripts/bench/ab.ts, 40 rounds, 30 and 31 of them lower). The Bind,
// Execute and Sync are written into one buffer here (`bindExecuteSync`): PGlite's writer measured
// each value's UTF-8 length a character at a time in JavaScript, the JSON of a run's events and
// messages included — 0.36–0.55 ms less CPU a run (ab.ts, 40 rounds, 33 and 31 lower).
// An execution's result is made from its messages here (`resultOf`, what PGlite's
// `parseResults` makes), each column's parser found once per statement: 0.18–0.50 ms less a
// run (ab.ts, four runs of 40 rounds; 99 of 160 rounds lower, sign test p = 0.003).
//
// What it keeps of PGlite's `query`: the same parsing of rows (PGlite's own parsers and the
// options'), the same serializers for parameters, the same errors (DatabaseError with its
// `code`), the same exclusivity (a transaction holds the database; a statement runs alone).
// At most MAX texts are kept, the least recently used closed first. A statement whose plan no
// longer fits its table (a migration changed it: `cached plan must not change result type`) is
// closed and parsed again: at once outside a transaction, at its next use inside one (whose
// transaction the error ended).

const MAX = 256;

type Parser = (value: string, type: number) => unknown;
type Serializer = (value: unknown) => string;
type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<number, Parser>; serializers?: Record<number, Serializer>; paramTypes?: number[] } & Record<string, unknown>;
type Results = Awaited<ReturnType<PGlite['query']>>;
type BackendMessage = Parameters<typeof parse.parseResults>[0][number];

/** What PGlite keeps to itself and this needs (stable across 0.3.x: its own `query` uses them). */
interface Internals {
  serializers: Record<number, Serializer>;
  parsers: Record<number, Parser>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _checkReady(): Promise<void>;
  syncToFs(): Promise<void>;
}

type TxClient = Parameters<Parameters<PGlite['transaction']>[0]>[0];

const { serialize } = protocol;

/** The statement no longer fits its table (0A000: `cached plan must not change result type`) or no longer exists (26000). */
const gone = (err: unknown) => ['0A000', '26000'].includes((err as { code?: string }).code ?? '');

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Bind (the unnamed portal, every parameter and column as text), Execute and Sync in one buffer:
 * what `serialize.bind` + `serialize.execute` + `serialize.sync` send, written at once, each
 * value's length from Buffer.byteLength.
 */
export function bindExecuteSync(statement: string, values: readonly (string | null)[]): Uint8Array {
  const sizes = new Array<number>(values.length);
  // 'B' length, portal "", statement, 0 parameter formats, the values' count, 0 result formats.
  let bind = 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + 2;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const n = v === null || v === undefined ? -1 : Buffer.byteLength(v);
    sizes[i] = n;
    bind += 4 + (n > 0 ? n : 0);
  }
  const out = Buffer.allocUnsafeSlow(1 + bind + 10 + 5);
  let at = out.writeUInt8(0x42, 0);
  at = out.writeInt32BE(bind, at);
  at = out.writeUInt8(0, at);
  at += out.write(statement, at);
  at = out.writeUInt8(0, at);
  at = out.writeInt16BE(0, at);
  at = out.writeUInt16BE(values.length, at);
  for (let i = 0; i < values.length; i++) {
    at = out.writeInt32BE(sizes[i]!, at);
    if (sizes[i]! > 0) at += out.write(values[i]!, at);
  }
  at = out.writeInt16BE(0, at);
  // 'E' length 9, portal "", no row limit; 'S' length 4.
  at = out.writeUInt8(0x45, at);
  at = out.writeInt32BE(9, at);
  at = out.writeUInt8(0, at);
  at = out.writeInt32BE(0, at);
  at = out.writeUInt8(0x53, at);
  out.writeInt32BE(4, at);
  return out;
}

type Field = { name: string; dataTypeID: number };

/**
 * An execution's result from its messages, as PGlite's `parseResults` makes it (rows by array or
 * by object, each value through the parser of its type, the command and its counts), with the
 * statement's fields and their parsers worked out once per statement and parser table.
 */
function resultOf(messages: BackendMessage[], st: Prepared, parsers: Record<number, Parser>, asArray: boolean): Results {
  const fields = st.fields ?? [];
  if (st.parsersOf !== parsers) {
    st.parsersOf = parsers;
    st.parsers = fields.map((f) => parsers[f.dataTypeID]);
  }
  const parse = st.parsers!;
  const cell = (v: string | null, i: number) => (v === null ? null : parse[i] ? parse[i]!(v, fields[i]!.dataTypeID) : v);
  const rows: unknown[] = [];
  let affectedRows = 0;
  for (const m of messages) {
    if (m.name === 'dataRow') {
      const values = (m as unknown as { fields: (string | null)[] }).fields;
      rows.push(asArray ? values.map(cell) : Object.fromEntries(values.map((v, i) => [fields[i]!.name, cell(v, i)])));
    } else if (m.name === 'commandComplete') {
      const words = (m as unknown as { text: string }).text.split(' ');
      const command = words[0]!;
      const count = parseInt(words[words.length - 1]!, 10);
      if (['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(command)) affectedRows += count;
      return { rows, fields, command, affectedRows, ...(Number.isNaN(count) ? {} : { rowCount: count }) } as Results;
    }
  }
  return { affectedRows: 0, rows: [], fields: [] } as unknown as Results;
}

/** A statement's name and its parameters' types, as PostgreSQL inferred them. */
interface Prepared {
  name: string;
  types: number[];
  /** Its rows' fields (names and types), as the statement's Describe gave them; null for a statement without rows. */
  fields: Field[] | null;
  /** The fields' parsers from the parser table `parsersOf` (worked out at first use). */
  parsersOf?: Record<number, Parser>;
  parsers?: (Parser | undefined)[];
}

/**
 * The instance with `query` (and a transaction's `query`) running named prepared statements;
 * every other property is the instance's own.
 */
export function withPreparedStatements<T extends PGlite>(pglite: T, max = MAX): T {
  const pg = pglite as T & Internals;
  const statements = new Map<string, Prepared>();
  let counter = 0;
  const send = (message: Uint8Array) => pg.execProtocolStream(message, { syncToFs: false }) as unknown as Promise<BackendMessage[]>;
  const close = (name: string) => send(concat([serialize.close({ type: 'S', name }), serialize.sync()])).catch(() => {});

  async function prepare(text: string, options?: QueryOptions): Promise<Prepared> {
    if (statements.size >= max) {
      const [oldest, old] = statements.entries().next().value!;
      statements.delete(oldest);
      await close(old.name);
    }
    const name = `aas_${(++counter).toString(36)}`;
    try {
      const described = await send(concat([serialize.parse({ name, text, types: options?.paramTypes }), serialize.describe({ type: 'S', name })]));
      const row = described.find((m) => m.name === 'rowDescription') as unknown as { fields: Field[] } | undefined;
      const st: Prepared = { name, types: parse.parseDescribeStatementResults(described), fields: row ? row.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) : null };
      statements.set(text, st);
      return st;
    } catch (err) {
      // The backend skips everything until a sync; a statement that was parsed is closed.
      await send(serialize.sync()).catch(() => {});
      await close(name);
      throw err;
    }
  }

  /** One statement, the caller holding the database (a transaction, or `query` below). */
  function run(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results> {
    return pg._runExclusiveQuery(async () => {
      let st = statements.get(text);
      if (st) {
        // Most recently used last: the Map's order is the eviction order.
        statements.delete(text);
        statements.set(text, st);
      } else {
        st = await prepare(text, options);
      }
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null;
        const type = st.types[i]!;
        const serializer = options?.serializers?.[type] ?? pg.serializers[type];
        return serializer ? serializer(value) : (value as { toString(): string }).toString();
      });
      let messages: BackendMessage[];
      try {
        messages = await send(
          // (A serializer that gave something else than text, or more values than a Bind can count:
          // PGlite's own Bind, as before, and the database's own error for the second.)
          values.length > 0xffff || !values.every((v) => v === null || typeof v === 'string')
            ? concat([serialize.bind({ statement: st.name, values: values as string[] }), serialize.execute({}), serialize.sync()])
            : bindExecuteSync(st.name, values as (string | null)[]),
        );
      } catch (err) {
        if (gone(err)) {
          statements.delete(text);
          await close(st.name);
        }
        throw err;
      }
      // The fields come from the statement's Describe, not from a Describe of the portal each time.
      return resultOf(messages, st, options?.parsers ? { ...pg.parsers, ...options.parsers } : pg.parsers, options?.rowMode === 'array');
    });
  }

  /** `run` outside a transaction: a statement whose plan no longer fits is parsed again at once. */
  const runAnew = (text: string, params?: unknown[], options?: QueryOptions) =>
    run(text, params, options).catch((err: unknown) => {
      if (gone(err) && !statements.has(text)) return run(text, params, options);
      throw err;
    });

  const query = (async (text: string, params?: unknown[], options?: QueryOptions) => {
    await pg._checkReady();
    return pg._runExclusiveTransaction(async () => {
      const result = await runAnew(text, params, options);
      await pg.syncToFs();
      return result;
    });
  }) as PGlite['query'];

  const transaction = (<R>(fn: (tx: TxClient) => Promise<R>) =>
    pglite.transaction((tx) => {
      const txQuery = (async (text: string, params?: unknown[], options?: QueryOptions) => {
        if (tx.closed) throw new Error('Transaction is closed');
        return run(text, params, options);
      }) as PGlite['query'];
      return fn(delegate(tx, { query: txQuery }));
    })) as PGlite['transaction'];

  // The database to one caller for several statements without BEGIN and COMMIT (db/transaction.ts
  // `alone`): each statement commits as it runs, and nobody else's runs in between.
  const refused = () => Promise.reject(new Error('exclusive: only `query` runs while the database is held'));
  const held = delegate(pglite, { query: runAnew, exec: refused, transaction: refused }) as unknown as TxClient;
  const exclusive = async <R>(fn: (client: TxClient) => Promise<R>): Promise<R> => {
    await pg._checkReady();
    return pg._runExclusiveTransaction(async () => {
      const result = await fn(held);
      await pg.syncToFs();
      return result;
    });
  };

  return delegate(pglite, { query, transaction, exclusive });
}

/** `target` with some of its properties replaced; its methods bound to it. */
function delegate<T extends object>(target: T, own: Record<string, unknown>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (typeof prop === 'string' && Object.hasOwn(own, prop)) return own[prop];
      const value: unknown = Reflect.get(t, prop);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
    },
  });
}
