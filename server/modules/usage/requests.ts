import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { Environment } from '../../../db/schema';
import { log } from '../../platform/log';
import { bucketOf, format, type Counts } from './histogram';
import { addToRollup } from './rollups';

// API request usage (docs/analytics.md): counted in this process's memory — nothing is written
// on the request path — and flushed every FLUSH_MS and at shutdown as additive upserts of hour
// and day rows (one statement). A process that is killed loses at most its last unflushed
// interval. The buffer is bounded: past MAX_ENTRIES distinct (key, hour) pairs it flushes at once.

/** The key a request identified, even a revoked, expired or under-scoped one. */
export interface RequestOwner {
  keyId: string;
  workspaceId: string;
  environment: Environment;
}

const FLUSH_MS = 2_000;
const MAX_ENTRIES = 20_000;
const HOUR_MS = 3_600_000;

type Outcome = 'succeeded' | 'clientErrors' | 'unauthorized' | 'forbidden' | 'rateLimited' | 'serverErrors';
const OUTCOMES: readonly Outcome[] = ['succeeded', 'clientErrors', 'unauthorized', 'forbidden', 'rateLimited', 'serverErrors'];

/** The outcome a status counts as: 2xx/3xx, 401, 403, 429, other 4xx, 5xx. */
export function outcomeOf(status: number): Outcome {
  if (status < 400) return 'succeeded';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 429) return 'rateLimited';
  return status < 500 ? 'clientErrors' : 'serverErrors';
}

interface Entry {
  owner: RequestOwner;
  hour: number;
  counts: Record<Outcome, number>;
  hist: Counts;
}

const zero = (): Record<Outcome, number> => ({ succeeded: 0, clientErrors: 0, unauthorized: 0, forbidden: 0, rateLimited: 0, serverErrors: 0 });

export class RequestUsage {
  private entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly enabled = true,
  ) {}

  /** One answered request of `owner`'s key: its status and how long it took (ms). */
  record(owner: RequestOwner, status: number, ms: number, at = Date.now()): void {
    if (!this.enabled) return;
    const hour = at - (at % HOUR_MS);
    const id = `${owner.keyId}|${hour}`;
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { owner, hour, counts: zero(), hist: new Map() };
      this.entries.set(id, entry);
      if (this.entries.size >= MAX_ENTRIES) void this.flush();
    }
    entry.counts[outcomeOf(status)]++;
    const k = bucketOf(ms);
    entry.hist.set(k, (entry.hist.get(k) ?? 0) + 1);
  }

  start(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes what is buffered. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Writes the buffer (one flush at a time; a failed one is merged back to be written later). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.entries.size === 0) return;
    const batch = [...this.entries.values()];
    this.entries = new Map();
    try {
      await this.db.execute(upsert(batch));
    } catch (err) {
      log.error({ err, entries: batch.length }, 'request usage flush failed; kept for the next flush');
      for (const e of batch) this.merge(e);
    }
  }

  private merge(e: Entry): void {
    const id = `${e.owner.keyId}|${e.hour}`;
    const into = this.entries.get(id);
    if (!into) {
      if (this.entries.size < MAX_ENTRIES * 2) this.entries.set(id, e);
      return;
    }
    addCounts(into, e);
  }
}

/** Adds the counts and histogram of `from` into `into`. */
function addCounts(into: { counts: Record<Outcome, number>; hist: Counts }, from: { counts: Record<Outcome, number>; hist: Counts }): void {
  for (const o of OUTCOMES) into.counts[o] += from.counts[o];
  for (const [k, n] of from.hist) into.hist.set(k, (into.hist.get(k) ?? 0) + n);
}

/** The hour rows of a batch and the day rows they add up to, as one additive upsert. */
function upsert(batch: Entry[]) {
  const rows = new Map<string, { granularity: 'hour' | 'day'; bucket: number; owner: RequestOwner; counts: Record<Outcome, number>; hist: Counts }>();
  for (const e of batch) {
    const day = e.hour - (e.hour % 86_400_000);
    for (const [granularity, bucket] of [['hour', e.hour], ['day', day]] as const) {
      const id = `${granularity}|${bucket}|${e.owner.keyId}`;
      let row = rows.get(id);
      if (!row) rows.set(id, (row = { granularity, bucket, owner: e.owner, counts: zero(), hist: new Map() }));
      addCounts(row, e);
    }
  }
  const list = [...rows.values()].map((r) => ({
    w: r.owner.workspaceId,
    e: r.owner.environment,
    g: r.granularity,
    b: new Date(r.bucket).toISOString(),
    k: r.owner.keyId,
    ...r.counts,
    h: format(r.hist),
  }));
  // Inserted in key order, so two processes flushing the same rows lock them in the same order;
  // rows of a workspace deleted meanwhile are dropped.
  return sql`insert into usage_request_rollups as u (workspace_id, environment, granularity, bucket, key_id,
      succeeded, client_errors, unauthorized, forbidden, rate_limited, server_errors, duration_hist)
    select r.w, r.e, r.g, r.b, r.k, r."succeeded", r."clientErrors", r."unauthorized", r."forbidden", r."rateLimited", r."serverErrors", r.h
    from jsonb_to_recordset(${JSON.stringify(list)}::jsonb) as r(w text, e text, g text, b timestamptz, k text,
      "succeeded" int, "clientErrors" int, "unauthorized" int, "forbidden" int, "rateLimited" int, "serverErrors" int, h text)
    where exists (select 1 from workspaces ws where ws.id = r.w)
    order by r.w, r.e, r.g, r.b, r.k
    on conflict (workspace_id, environment, granularity, bucket, key_id) do update set
      ${addToRollup(['succeeded', 'client_errors', 'unauthorized', 'forbidden', 'rate_limited', 'server_errors'])}`;
}
