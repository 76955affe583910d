import { SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { log } from './log';

// Cross-process signals over PostgreSQL LISTEN/NOTIFY (in-process on the embedded PGlite, which
// has the same LISTEN/NOTIFY), typed in this one place: each channel with its payload and how it
// is written on the wire. No other file names a channel or calls pg_notify (a source scan in
// notify.test.ts holds that). A signal is only a wake-up: the database row is the truth, and
// whoever receives one re-reads it. Notifications sent inside a transaction arrive at commit,
// so nobody is woken for a change that rolled back.
//
// The wire texts are the ones every earlier version sent, so old and new processes understand
// each other during a rolling upgrade.

/** A channel: its name and how its payload is written and read (a payload that does not read is dropped). */
export interface Channel<T> {
  readonly name: string;
  encode(payload: T): string;
  decode(text: string): T | undefined;
}

const channel = <T>(name: string, encode: (p: T) => string, decode: (text: string) => T | undefined): Channel<T> => ({ name, encode, decode });
// An id as the API writes them (`exe_01J…`); tests seed readable ones (`exe_backlog_1`).
const ID = /^[a-z]+_[0-9A-Za-z_]{1,100}$/;
const id = (text: string) => (ID.test(text) ? text : undefined);

/** Events of an execution were written, up to `seq`; `final` when the last is its terminal event. */
export interface EventsSignal {
  id: string;
  seq: number;
  final: boolean;
}

/** What a worker wakes for on `work`: runs were queued or a slot freed; webhook deliveries may be due. */
export const WORK = ['executions', 'webhooks'] as const;
export type Work = (typeof WORK)[number];

export const CHANNELS = {
  /** `<executionId>:<seq>[:final]`: events were appended (streams and waiters read them). */
  executionEvents: channel<EventsSignal>(
    'aas_execution',
    (p) => `${p.id}:${p.seq}${p.final ? ':final' : ''}`,
    (text) => {
      const [eid, seq, final, ...rest] = text.split(':');
      const n = Number(seq);
      if (!eid || !id(eid) || !Number.isSafeInteger(n) || rest.length > 0 || (final !== undefined && final !== 'final')) return undefined;
      return { id: eid, seq: n, final: final === 'final' };
    },
  ),
  /** `<executionId>`: the execution was cancelled; the worker running it aborts. */
  cancel: channel<string>('aas_cancel', (p) => p, id),
  /** `<executionId>`: a stream in another process follows it; the process running it writes its events promptly. */
  follow: channel<string>('aas_follow', (p) => p, id),
  /** `executions` or `webhooks`: work may be waiting; consumers claim or fetch. */
  work: channel<Work>('aas_jobs', (p) => p, (text) => (WORK as readonly string[]).includes(text) ? (text as Work) : undefined),
  /** `<budgetId>,<budgetId>…`: a charge folded into a run's finish crossed an alert of these budgets; a worker sends it. */
  budgets: channel<string[]>(
    'aas_budgets',
    (p) => p.join(','),
    (text) => {
      const ids = text.split(',');
      return ids.length > 0 && ids.length <= 100 && ids.every((i) => id(i)) ? ids : undefined;
    },
  ),
  /** `<experimentId>` or `<ruleId>`: an experiment has work (created, cancelled, one of its runs ended), or an online rule has runs to score (docs/evals.md). */
  evals: channel<string>('aas_evals', (p) => p, id),
  /** An event was written to the outbox; the webhook relay makes its deliveries. */
  outbox: channel<null>('aas_events', () => '', (text) => (text === '' ? null : undefined)),
  /**
   * A key or its workspace changed what a key's lookup reads; kept lookups are dropped
   * (keys/lookup-cache.ts). Sent by the database itself: a trigger of db/migrations/0035_key_signals.sql.
   */
  keys: channel<null>('aas_keys', () => '', (text) => (text === '' ? null : undefined)),
} as const;

type AnyChannel = (typeof CHANNELS)[keyof typeof CHANNELS];
const ALL: readonly AnyChannel[] = Object.values(CHANNELS);

/** `select pg_notify(…)`: a statement of its own (in a transaction, delivered at the commit). */
export const notify = <T>(c: Channel<T>, payload: T): SQL => sql`select ${notifyCall(c, payload)}`;

/**
 * The `pg_notify(…)` call, for a statement that sends it per row or on a condition
 * (`select ${notifyCall(…)} from promoted`). `payload` may be SQL that computes the wire text.
 */
export const notifyCall = <T>(c: Channel<T>, payload: T | SQL): SQL =>
  sql`pg_notify(${sql.raw(`'${c.name}'`)}, ${payload instanceof SQL ? payload : c.encode(payload)})`;

export interface Bus {
  /** Calls `fn` for every signal on the channel (payloads that do not read are logged and dropped); returns the unsubscribe function. */
  subscribe<T>(channel: Channel<T>, fn: (payload: T) => void): () => void;
  /** Calls `fn` after the listening connection was re-established (signals may have been missed). */
  onReconnect(fn: () => void): () => void;
  close(): Promise<void>;
}

/** Listens on every channel once, for all of this process's subscribers. */
export async function openBus(database: Database): Promise<Bus> {
  const subscribers = new Map<string, Set<(text: string) => void>>(ALL.map((c) => [c.name, new Set()]));
  const reconnects = new Set<() => void>();
  const dispatch = (name: string) => (text: string) => {
    for (const fn of subscribers.get(name)!) {
      try {
        fn(text);
      } catch (err) {
        log.error({ err, channel: name }, 'bus subscriber failed');
      }
    }
  };
  const closers: (() => Promise<void>)[] = [];
  for (const { name } of ALL) {
    if (database.kind === 'pglite') {
      closers.push(await database.pglite!.listen(name, dispatch(name)));
    } else {
      let first = true;
      const { unlisten } = await database.sql!.listen(name, dispatch(name), () => {
        // postgres.js re-LISTENs after a lost connection and calls this again.
        if (first) first = false;
        else for (const fn of reconnects) fn();
      });
      closers.push(unlisten);
    }
  }
  return {
    subscribe(channel, fn) {
      const set = subscribers.get(channel.name);
      if (!set) throw new Error(`not a channel of CHANNELS: ${channel.name}`);
      const reader = (text: string) => {
        const payload = channel.decode(text);
        if (payload === undefined) log.warn({ channel: channel.name, payload: text.slice(0, 100) }, 'signal with an unreadable payload dropped');
        else fn(payload);
      };
      set.add(reader);
      return () => void set.delete(reader);
    },
    onReconnect(fn) {
      reconnects.add(fn);
      return () => void reconnects.delete(fn);
    },
    async close() {
      await Promise.allSettled(closers.map((c) => c()));
    },
  };
}
