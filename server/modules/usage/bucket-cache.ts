// Settled buckets of usage answers, kept per process (docs/analytics.md, "Speed"). A bucket that
// ended more than SETTLE_MS ago no longer changes: an execution counts in the bucket of the
// `completed_at` its finish transaction wrote (the database's clock when that short transaction
// began), and its record is in the table by the time the bucket settles; the records not yet
// compacted are read with the rollups. So a bucket's rows, once read after it settled, can be
// answered again from memory — by any process, each keeping its own. Bounded: at most
// USAGE_CACHE_ROWS rows (100,000 by default, some tens of MB), least recently used first out.

export const SETTLE_MS = 10 * 60_000;

/** What a bucket answers: its rows (views), its counters and its histogram as pairs (for totals). */
export interface BucketEntry<Row> {
  start: number;
  rows: Row[];
  counts: Record<string, number>;
  hist: number[];
}

export class BucketCache {
  private entries = new Map<string, BucketEntry<unknown>>();
  private rows = 0;

  constructor(private readonly maxRows: number) {}

  /** The entries of every bucket start in `starts`, or null when one of them is missing. */
  getAll<Row>(prefix: string, starts: number[]): BucketEntry<Row>[] | null {
    const out: BucketEntry<Row>[] = [];
    for (const start of starts) {
      const key = prefix + start;
      const entry = this.entries.get(key);
      if (!entry) return null;
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      out.push(entry as BucketEntry<Row>);
    }
    return out;
  }

  setAll<Row>(prefix: string, list: BucketEntry<Row>[]): void {
    const weight = list.reduce((n, e) => n + Math.max(1, e.rows.length), 0);
    if (weight > this.maxRows / 4) return; // one answer may not take most of it
    for (const entry of list) {
      const key = prefix + entry.start;
      const old = this.entries.get(key);
      if (old) {
        this.rows -= Math.max(1, old.rows.length);
        this.entries.delete(key);
      }
      this.entries.set(key, entry);
      this.rows += Math.max(1, entry.rows.length);
    }
    for (const [key, entry] of this.entries) {
      if (this.rows <= this.maxRows) break;
      this.entries.delete(key);
      this.rows -= Math.max(1, entry.rows.length);
    }
  }

  get size(): number {
    return this.rows;
  }
}
