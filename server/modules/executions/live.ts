import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { intArray, queryRows, textArray } from '../../../db/rows';
import { CHANNELS, notify, type Bus } from '../../platform/notify';
import { log } from '../../platform/log';
import { batches } from '../../platform/batches';
import { storedEvent, storedEvents } from './packs';
import { TERMINAL_EVENT_TYPES, type ExecutionEventType, type RecordedEvent } from './events';

// The live events of executions, once per process (docs/executions.md, "Streams"). A stream
// reads an execution's events from its tail here, not from the database:
//   - a run in this process feeds its tail as events happen (before they are written);
//   - for a run elsewhere, the tail reads the database once per signal (NOTIFY `aas_execution`)
//     for every stream of this process following it, and asks the run's process to write its
//     events promptly (NOTIFY `aas_follow`: a run nobody follows from afar writes them lazily).
// A tail holds a window of recent events, bounded in bytes; a stream behind the window reads
// the rest from the database itself. Events are rendered as JSON once, for every stream (the
// edge, server/api/sse.ts, frames them: the domain writes no HTTP).

const followSignal = (id: string) => notify(CHANNELS.follow, id);

export const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

/** Bytes of events a tail keeps in memory (older ones are read from the database by whoever needs them). */
const WINDOW_BYTES = 512 * 1024;
/** Events read from the database at once. */
export const PAGE = 500;
/** Remote tails read in one statement. */
const READ_BATCH = 100;

export interface LiveEvent {
  seq: number;
  type: ExecutionEventType;
  /** The whole event as JSON text (events.ts), its type first. */
  json: string;
}

/** An event's JSON text, as every stream sends it: the type first, then its data. */
export function eventJson({ type, data }: RecordedEvent): string {
  return JSON.stringify({ type, ...data });
}

/** The events of one execution this process has seen, from `from` on, with no gaps but before the terminal event. */
export class Tail {
  events: LiveEvent[] = [];
  private bytes = 0;
  /** The highest sequence number held (or, before any, the position the window starts after). */
  hi = 0;
  final = false;
  /** Fed by a run in this process (else read from the database). */
  local = false;
  /** A local run's events up to here are in the database (only those may leave the window). */
  persisted = 0;
  refs = 0;
  /** The window has been positioned (a first stream or the local run said where it starts). */
  started = false;
  /** Times this process asked the run's process to write promptly (`aas_follow`). */
  asked = 0;
  private waiters = new Set<() => void>();

  constructor(readonly id: string) {}

  /** The sequence number the window starts at (events below it: read the database). */
  get from(): number {
    return this.events[0]?.seq ?? this.hi + 1;
  }

  /** Adds events in order; ones already held (a database read racing the local run) are skipped. */
  append(events: LiveEvent[]): void {
    let added = false;
    for (const e of events) {
      if (e.seq <= this.hi) continue;
      this.events.push(e);
      this.bytes += e.json.length;
      this.hi = e.seq;
      added = true;
      if (TERMINAL.has(e.type)) this.final = true;
    }
    this.started = true;
    this.trim();
    if (added) this.wake();
  }

  /** Positions an empty window after `seq` (the first stream's position). */
  startAfter(seq: number): void {
    if (this.started) return;
    this.started = true;
    this.hi = seq;
  }

  private trim(): void {
    while (this.bytes > WINDOW_BYTES && this.events.length > 1) {
      const first = this.events[0]!;
      if (this.local && first.seq > this.persisted) break;
      this.events.shift();
      this.bytes -= first.json.length;
    }
  }

  markPersisted(seq: number): void {
    this.persisted = Math.max(this.persisted, seq);
    this.trim();
  }

  /** Events after `seq`, or null when some of them have left the window (read the database). */
  after(seq: number): LiveEvent[] | null {
    if (seq + 1 < this.from) return null;
    const i = this.events.findIndex((e) => e.seq > seq);
    return i < 0 ? [] : this.events.slice(i);
  }

  /** Resolves at the next change (or `ms`); returns a function that stops waiting early. */
  changed(ms: number): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => {};
    const promise = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      cancel = done;
    });
    return { promise, cancel };
  }

  wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/**
 * A stored event's JSON text, built by PostgreSQL: the same characters as `eventJson` (events are
 * stored as JSON.stringify wrote them, and the `json` type keeps the text).
 */
const JSON_TEXT = sql.raw(`'{"type":' || to_json(type)::text || (case when data::text = '{}' then '}' else ',' || substr(data::text, 2) end)`);
/** A read returns rows up to about this many characters (always at least one row). */
const PAGE_CHARS = 256 * 1024;
/** Events larger than this are read and sent piece by piece (a stream never holds one whole). */
export const PIECE_CHARS = 256 * 1024;

/** A stored event: its JSON text, or (a large one read for one stream) only its data's length, to read in pieces. */
export interface StoredEvent {
  seq: number;
  type: ExecutionEventType;
  json: string | null;
  /** Characters of the event's data (its JSON text). */
  length: number;
}

/**
 * Reads an execution's events after `seq` (and before `below`) from the database: a page of at
 * most PAGE rows and about PAGE_CHARS characters. `whole`: every event in full (a tail shared by
 * streams); otherwise events over PIECE_CHARS come as their length only (`readPiece`).
 */
export async function readEvents(db: Db, executionId: string, seq: number, opts: { below?: number; whole?: boolean } = {}): Promise<StoredEvent[]> {
  const whole = opts.whole ?? true;
  return queryRows<StoredEvent>(
    db,
    sql`select seq, type, length, case when ${whole} or length <= ${PIECE_CHARS} then ${JSON_TEXT} end as json
        from (${pageOf(sql`${executionId}`, sql`${seq}`, sql`${opts.below ?? 2_147_483_647}`)}) p
        order by seq`,
  );
}

/** One execution's page of events after `after` and before `below`: at most PAGE rows and about PAGE_CHARS characters (always one). */
const pageOf = (executionId: SQL, after: SQL, below: SQL) =>
  sql`select seq, type, data, length from (
        select seq, type, data, length, sum(length) over (order by seq) as upto from (
          select seq, type, data, length(data::text)::int as length from (${storedEvents(executionId, after, below)}) s
          order by seq limit ${PAGE}) e) q
      where upto - length < ${PAGE_CHARS}`;

/**
 * `readEvents` (whole) of several executions in one statement, each after its own `after`:
 * each one's page as if read alone. Rows in order of execution and sequence number.
 */
export async function readEventsOf(db: Db, tails: { id: string; after: number }[]): Promise<(StoredEvent & { executionId: string })[]> {
  return queryRows<StoredEvent & { executionId: string }>(
    db,
    sql`select t.id as "executionId", p.seq, p.type, p.length, p.json
        from unnest(${textArray(tails.map((t) => t.id))}, ${intArray(tails.map((t) => t.after))}) as t(id, after)
        cross join lateral (select seq, type, length, ${JSON_TEXT} as json from (${pageOf(sql`t.id`, sql`t.after`, sql`2147483647`)}) q) p
        order by t.id, p.seq`,
  );
}

/** Characters [from, from + PIECE_CHARS) of a stored event's data (its JSON text). */
export async function readPiece(db: Db, executionId: string, seq: number, from: number): Promise<string> {
  const [row] = await queryRows<{ piece: string }>(
    db,
    sql`select substr(data::text, ${from + 1}, ${PIECE_CHARS}) as piece from (${storedEvent(sql`${executionId}`, sql`${seq}::int`)}) e`,
  );
  return row?.piece ?? '';
}

/** A large event's JSON text in pieces, read from the database as they are taken: the type, then its data after the first `{`. */
export async function* eventPieces(db: Db, executionId: string, e: Pick<StoredEvent, 'seq' | 'type' | 'length'>): AsyncGenerator<string> {
  yield `{"type":${JSON.stringify(e.type)},`;
  for (let from = 1; from < e.length; from += PIECE_CHARS) yield await readPiece(db, executionId, e.seq, from);
}

/** A run in this process, as the tails see it: the events it has made so far (written or not). */
export interface LocalRun {
  /** Every event of the run so far, `execution.started` first, as JSON. */
  events(): LiveEvent[];
  /** The events up to here are in the database. */
  persisted(): number;
  /** Writes what the run holds unwritten (events, and what its participants recorded: spans), promptly from now on. */
  follow(): void;
  flush(always?: boolean): Promise<void>;
}

/** The process's tails and terminal-event waiters, fed by one subscription to the bus. */
export class Live {
  private tails = new Map<string, Tail>();
  private runs = new Map<string, LocalRun>();
  private finals = new Map<string, Set<() => void>>();
  /** Readers waiting for a run's next write (`catchUp`). */
  private writes = new Map<string, Set<() => void>>();
  /** Remote tails to read from the database, all in the next statement (`readBatch`). */
  private toRead = new Set<Tail>();
  private readonly kickRead = batches(
    () => this.toRead.size > 0,
    () => this.readBatch(),
  );
  private offs: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
  ) {
    this.offs.push(
      bus.subscribe(CHANNELS.executionEvents, ({ id, final }) => {
        const tail = this.tails.get(id);
        if (tail && !tail.local) {
          // The run has started somewhere: ask again to write promptly (it may have started after the first ask).
          if (tail.asked < 2) this.follow(tail);
          this.read(tail);
        }
        if (final) for (const fn of [...(this.finals.get(id) ?? [])]) fn();
        for (const fn of [...(this.writes.get(id) ?? [])]) fn();
      }),
      bus.onReconnect(() => {
        // Signals may have been missed: every remote tail and waiter looks again.
        for (const tail of this.tails.values()) if (!tail.local) this.read(tail);
        for (const set of this.finals.values()) for (const fn of [...set]) fn();
        for (const set of this.writes.values()) for (const fn of [...set]) fn();
      }),
    );
  }

  /**
   * A run in this process starts: streams of it are fed from memory. Nothing is rendered for
   * streams until one follows (`acquire`); a tail streams were already reading from the
   * database is taken over at once.
   */
  local(id: string, run: LocalRun): void {
    this.runs.set(id, run);
    const tail = this.tails.get(id);
    if (tail) this.feed(tail, run);
  }

  /** The tail the run in this process writes to, when a stream follows it. */
  localTail(id: string): Tail | undefined {
    const tail = this.tails.get(id);
    return tail?.local ? tail : undefined;
  }

  /** The run in this process ended: its tail stays while streams still read it (from the database from now on). */
  unlocal(id: string): void {
    this.runs.delete(id);
    const tail = this.tails.get(id);
    if (!tail) return;
    tail.local = false;
    if (tail.refs === 0) this.tails.delete(id);
    else this.read(tail);
  }

  private feed(tail: Tail, run: LocalRun): void {
    tail.local = true;
    tail.append(run.events());
    tail.markPersisted(run.persisted());
  }

  /** A stream's hold on an execution's tail; the first one from afar asks the run to write promptly. */
  acquire(id: string, afterSeq: number): Tail {
    let tail = this.tails.get(id);
    if (!tail) {
      tail = new Tail(id);
      this.tails.set(id, tail);
      const run = this.runs.get(id);
      if (run) this.feed(tail, run);
    }
    tail.refs++;
    if (!tail.local && !tail.started) {
      tail.startAfter(afterSeq);
      this.follow(tail);
      this.read(tail);
    }
    return tail;
  }

  release(tail: Tail): void {
    tail.refs--;
    if (tail.refs <= 0 && !tail.local) this.tails.delete(tail.id);
  }

  /** Calls `fn` when the execution's terminal event is signalled (or the listener reconnected); returns the unsubscribe. */
  onFinal(id: string, fn: () => void): () => void {
    let set = this.finals.get(id);
    if (!set) this.finals.set(id, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.finals.delete(id);
    };
  }

  /**
   * Waits until a running execution's process has written what it recorded so far (its events,
   * its spans), and has it write promptly from now on: at once for a run in this process; for a
   * run elsewhere, its next write after asking (NOTIFY `aas_follow`), or `timeoutMs`.
   */
  async catchUp(id: string, timeoutMs: number): Promise<void> {
    const run = this.runs.get(id);
    if (run) return run.flush();
    let set = this.writes.get(id);
    if (!set) this.writes.set(id, (set = new Set()));
    const waiters = set;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.writes.get(id) === waiters) this.writes.delete(id);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      waiters.add(done);
      void this.db.execute(followSignal(id)).catch(done);
    });
  }

  /** Whether the process holds a tail of this execution (tests, diagnostics). */
  has(id: string): boolean {
    return this.tails.has(id);
  }

  /** Tails, local runs and terminal-event waiters held now (tests, diagnostics). */
  get size(): number {
    return this.tails.size + this.runs.size + this.finals.size + this.writes.size;
  }

  private follow(tail: Tail): void {
    tail.asked++;
    void this.db.execute(followSignal(tail.id)).catch((err: unknown) => log.warn({ err, executionId: tail.id }, 'follow signal failed'));
  }

  /**
   * Reads a remote tail's new events. The tails signalled while a read is under way are read
   * together when it ends, in one statement (one in flight per process): at 200 streams of runs
   * elsewhere, one read per write of the worker's (appender.ts), not one per run. A tail
   * signalled during the read that holds it is read once more.
   */
  private read(tail: Tail): void {
    if (tail.final || tail.local) return;
    this.toRead.add(tail);
    this.kickRead();
  }

  /** Reads up to READ_BATCH remote tails in one statement (`batches`: one read at a time, the next forming meanwhile). */
  private async readBatch(): Promise<void> {
    const tails = [...this.toRead].slice(0, READ_BATCH);
    for (const t of tails) this.toRead.delete(t);
    const reading = tails.filter((t) => !t.final && !t.local);
    if (reading.length === 0) return;
    let rows: (StoredEvent & { executionId: string })[];
    try {
      rows = await readEventsOf(
        this.db,
        reading.map((t) => ({ id: t.id, after: t.hi })),
      );
    } catch (err) {
      log.warn({ err, executions: reading.length }, 'reading execution events failed');
      return;
    }
    const byId = new Map<string, LiveEvent[]>();
    for (const r of rows) {
      let list = byId.get(r.executionId);
      if (!list) byId.set(r.executionId, (list = []));
      list.push({ seq: r.seq, type: r.type, json: r.json! });
    }
    for (const t of reading) {
      if (t.local) continue; // the run moved into this process meanwhile: it feeds the tail now
      const events = byId.get(t.id) ?? [];
      t.append(events);
      // A full page: there is more.
      if (events.length >= PAGE) this.toRead.add(t);
    }
  }

  close(): void {
    for (const off of this.offs) off();
    for (const tail of this.tails.values()) tail.wake();
  }
}
