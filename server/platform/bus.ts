import type { Database } from '../../db/client';
import { log } from './log';

// Cross-process signals over PostgreSQL LISTEN/NOTIFY (in-process on the embedded PGlite, which
// has the same LISTEN/NOTIFY). A signal is only a wake-up: the database row is the truth, and
// whoever receives one re-reads it. Notifications sent inside a transaction arrive at commit,
// so nobody is woken for a change that rolled back.
//
// Channels: `aas_execution` (payload `<executionId>:<seq>`: events were appended) and
// `aas_cancel` (payload `<executionId>`: the execution was cancelled; its worker aborts),
// `aas_jobs` (payload: a queue name, or `executions`: a run was queued or a slot freed; the
// consumers fetch or claim), `aas_events` (an event was written to the outbox; the webhook relay
// makes its deliveries), `aas_follow` (payload `<executionId>`: a stream in another process
// follows it; the process running it writes its events promptly).

export const CHANNELS = ['aas_execution', 'aas_cancel', 'aas_jobs', 'aas_events', 'aas_follow'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface Bus {
  /** Calls `fn` for every signal on the channel; returns the unsubscribe function. */
  subscribe(channel: Channel, fn: (payload: string) => void): () => void;
  /** Calls `fn` after the listening connection was re-established (signals may have been missed). */
  onReconnect(fn: () => void): () => void;
  close(): Promise<void>;
}

export async function openBus(database: Database): Promise<Bus> {
  const subscribers = new Map<Channel, Set<(payload: string) => void>>(CHANNELS.map((c) => [c, new Set()]));
  const reconnects = new Set<() => void>();
  const dispatch = (channel: Channel) => (payload: string) => {
    for (const fn of subscribers.get(channel)!) {
      try {
        fn(payload);
      } catch (err) {
        log.error({ err, channel }, 'bus subscriber failed');
      }
    }
  };
  const closers: (() => Promise<void>)[] = [];
  for (const channel of CHANNELS) {
    if (database.kind === 'pglite') {
      const unlisten = await database.pglite!.listen(channel, dispatch(channel));
      closers.push(unlisten);
    } else {
      let first = true;
      const { unlisten } = await database.sql!.listen(channel, dispatch(channel), () => {
        // postgres.js re-LISTENs after a lost connection and calls this again.
        if (first) first = false;
        else for (const fn of reconnects) fn();
      });
      closers.push(unlisten);
    }
  }
  return {
    subscribe(channel, fn) {
      subscribers.get(channel)!.add(fn);
      return () => void subscribers.get(channel)!.delete(fn);
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
