import type { Db } from '../../../db/client';
import { batches } from '../../platform/batches';
import { appendEventsOf, type Append } from './lifecycle';

// The runs of a process write their events together (docs/executions.md, "Streams"). A run that
// someone follows from another process writes what it recorded every EAGER_MS (recorder.ts): at
// 200 such runs that was ~5,000 statements a second, each with its round trip, its NOTIFY and
// its share of the pool. Here every write asked for while one is under way waits for it, and
// then they go as one statement (`appendEventsOf`): one in flight per database and process,
// the next batch forming meanwhile, within MAX_BATCH runs and MAX_BATCH_BYTES (`take`). A
// run's own writes stay in order (its recorder chains them). A batch that fails is tried again run by run, so that one run's bad write (a
// participant's part) fails that run alone, as when each wrote its own.

/** At most this many runs in one statement. */
const MAX_BATCH = 200;
/** At most about this many bytes of events in one statement (a larger write goes alone). */
const MAX_BATCH_BYTES = 1024 * 1024;

interface Waiting {
  item: Append;
  bytes: number;
  resolve: (owned: boolean) => void;
  reject: (err: unknown) => void;
}

class Appender {
  private queue: Waiting[] = [];
  private readonly kick = batches(
    () => this.queue.length > 0,
    () => this.writeBatch(),
  );

  constructor(private readonly db: Db) {}

  /** Writes the run's events with the others asked for now; true while its attempt owns the run. */
  append(item: Append, bytes: number): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ item, bytes, resolve, reject });
      this.kick();
    });
  }

  private async writeBatch(): Promise<void> {
    const batch = this.take();
    try {
      const owned = await appendEventsOf(
        this.db,
        batch.map((w) => w.item),
      );
      for (const w of batch) w.resolve(owned.has(w.item.id));
    } catch (err) {
      if (batch.length === 1) batch[0]!.reject(err);
      else await Promise.all(batch.map((w) => appendEventsOf(this.db, [w.item]).then((owned) => w.resolve(owned.has(w.item.id)), w.reject)));
    }
  }

  /**
   * The next statement's writes: the oldest one always (none waits for ever), then the others
   * smallest first while the statement stays within MAX_BATCH and MAX_BATCH_BYTES. A tenant whose
   * runs write large events (up to MAX_PENDING_BYTES each, recorder.ts) then makes another's small
   * write wait for one statement at most, not for all of theirs.
   */
  private take(): Waiting[] {
    const all = this.queue;
    let bytes = all.reduce((n, w) => n + w.bytes, 0);
    if (all.length <= MAX_BATCH && bytes <= MAX_BATCH_BYTES) {
      this.queue = [];
      return all;
    }
    const taken = new Set<Waiting>([all[0]!]);
    bytes = all[0]!.bytes;
    for (const w of all.slice(1).sort((x, y) => x.bytes - y.bytes)) {
      if (taken.size >= MAX_BATCH || bytes + w.bytes > MAX_BATCH_BYTES) break;
      taken.add(w);
      bytes += w.bytes;
    }
    this.queue = all.filter((w) => !taken.has(w));
    return all.filter((w) => taken.has(w));
  }
}

const appenders = new WeakMap<Db, Appender>();

/** Writes a running execution's events (about `bytes` of them), batched with the other runs of this process on the same database. */
export function appendBatched(db: Db, item: Append, bytes = 0): Promise<boolean> {
  let a = appenders.get(db);
  if (!a) appenders.set(db, (a = new Appender(db)));
  return a.append(item, bytes);
}
