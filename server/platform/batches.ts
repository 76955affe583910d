// Work asked for by many callers, done in batches one at a time (the event writes of a process's
// runs: executions/appender.ts; the tails its streams read: executions/live.ts `readBatch`). `kick`
// after adding work: the batch starts after this turn (what is asked for in the same turn goes
// together), `step` takes and does one batch while `pending()` says there is work, and work added
// meanwhile waits for the batch under way, then goes in the next. `step` answers its own callers,
// failures included; one that throws anyway is logged, and the loop stays ready for the next kick.
import { log } from './log';

export function batches(pending: () => boolean, step: () => Promise<void>): () => void {
  let busy = false;
  const run = async () => {
    try {
      while (pending()) await step();
    } catch (err) {
      log.error({ err }, 'a batch failed');
    } finally {
      busy = false;
      if (pending()) kick();
    }
  };
  const kick = () => {
    if (busy) return;
    busy = true;
    setImmediate(() => void run());
  };
  return kick;
}

/**
 * Calls for the same key in groups (the rate-limit stores' charges of a key, a key's lookup by
 * hash): a call for a key that has none under way goes at once, alone; calls made while one is
 * under way wait for it, then go together in one (at most `max`), so that a key's burst of
 * requests costs a few statements, not one each. Each group is sent after every call in it was
 * made, so each answer is as fresh as its own call's would be. `run` answers a group's items in
 * order; when it throws, every call of the group fails with its error.
 */
export function groupedBy<T, R>(run: (key: string, items: T[]) => Promise<R[]>, max = 1_000): (key: string, item: T) => Promise<R> {
  interface Call {
    item: T;
    resolve: (r: R) => void;
    reject: (err: unknown) => void;
  }
  // A key is here while a group of its calls is under way, with the calls waiting for the next.
  const waiting = new Map<string, Call[]>();
  const send = async (key: string, group: Call[]): Promise<void> => {
    try {
      const answers = await run(
        key,
        group.map((c) => c.item),
      );
      group.forEach((c, i) => c.resolve(answers[i]!));
    } catch (err) {
      for (const c of group) c.reject(err);
    }
    const next = waiting.get(key)!;
    if (next.length === 0) waiting.delete(key);
    else void send(key, next.splice(0, max));
  };
  return (key, item) =>
    new Promise<R>((resolve, reject) => {
      const call = { item, resolve, reject };
      const queued = waiting.get(key);
      if (queued) queued.push(call);
      else {
        waiting.set(key, []);
        void send(key, [call]);
      }
    });
}
