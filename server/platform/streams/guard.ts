import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows, textArray } from '../../../db/rows';
import { ApiError } from '../errors';
import { log } from '../log';
import { transactionWhole } from '../../../db/transaction';
import { isPglite } from '../../../db/advisory';
import { Counts } from '../counts';

// Requests that hold a connection for long (docs/concurrency.md):
//   - event streams: at most MAX_STREAMS open per API key or dashboard session, and
//     MAX_PER_WORKSPACE per workspace, counted over every process: each holds a lease row
//     (stream_leases) taken under the workspace's advisory lock; its process renews its leases
//     every RENEW_MS and deletes each as the stream ends; a process that died leaves leases that
//     expire after LEASE_SECONDS (not counted from then; the renewal sweeps them away). On the
//     embedded database the process is the only one (db/lock.ts): the leases are counted in its
//     memory (`leases: 'process'`), with no statement per stream. A stream ends within seconds of
//     its key's revocation or expiry, or its session's end: every CHECK_MS the process looks up
//     the holders of its open streams;
//   - `wait: true` requests: at most MAX_PER_WORKSPACE per workspace in each process, counted in
//     memory (a wait is one execution of the workspace's own, already limited by its rate and
//     concurrency; a lease per wait would double the database work of an execution).

export const MAX_STREAMS = 100;
export const MAX_PER_WORKSPACE = 1_000;
const LEASE_SECONDS = 30;
const RENEW_MS = 10_000;
const CHECK_MS = 2_000;

/** Who holds an event stream: an API key or a dashboard session, of a workspace. */
export type Holder = { kind: 'key' | 'session'; id: string; workspaceId: string };

const holderKey = (h: Holder) => `${h.kind}:${h.id}`;

export interface OpenStream {
  /** Aborted when the holder is no longer valid (revoked, expired, signed out). */
  signal: AbortSignal;
  /** Gives the lease back (idempotent). */
  close(): void;
}

/**
 * Where the leases of event streams are counted: `database`, in stream_leases, over every process
 * on the database; `process`, in this process's memory, when no other process can serve the same
 * workspaces (the embedded database, owned by one process).
 */
export type LeaseStore = 'database' | 'process';

export class StreamGuard {
  private readonly process = randomUUID();
  private readonly open = new Map<string, { holder: Holder; streams: Set<{ lease: string; controller: AbortController }> }>();
  /** Open streams per workspace (`leases: 'process'`). */
  private readonly perWorkspace = new Counts();
  private readonly waits = new Counts();
  private timers: NodeJS.Timeout[] = [];
  private readonly leases: LeaseStore;

  constructor(
    private readonly db: Db,
    opts: { leases?: LeaseStore } = {},
  ) {
    this.leases = opts.leases ?? 'database';
  }

  /** Counts a `wait: true` request of the workspace (429 past MAX_PER_WORKSPACE in this process); returns its release. */
  acquireWait(workspaceId: string): () => void {
    if (this.waits.get(workspaceId) >= MAX_PER_WORKSPACE) {
      throw new ApiError('rate_limit_exceeded', `Too many waiting requests for this workspace (at most ${MAX_PER_WORKSPACE}); retry later`, {
        headers: { 'Retry-After': '1' },
      });
    }
    this.waits.add(workspaceId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.waits.remove(workspaceId);
    };
  }

  start(): void {
    const renew = setInterval(() => void this.renew(), RENEW_MS);
    const check = setInterval(() => void this.check(), CHECK_MS);
    for (const t of [renew, check]) t.unref();
    this.timers.push(renew, check);
  }

  /** Opens an event stream for `holder`: 429 when its key or session has MAX_STREAMS open already, or its workspace MAX_PER_WORKSPACE. */
  async acquire(holder: Holder): Promise<OpenStream> {
    const key = holderKey(holder);
    const lease = randomUUID();
    const row = this.leases === 'process' ? this.countHere(key, holder.workspaceId) : await this.take(key, holder.workspaceId, lease);
    if (!row.taken) {
      const who = holder.kind === 'key' ? 'this API key' : 'this dashboard session';
      const message = !row.holder
        ? `Too many open event streams for ${who} (at most ${MAX_STREAMS}); close one first`
        : `Too many open event streams for this workspace (at most ${MAX_PER_WORKSPACE}); close one first`;
      throw new ApiError('rate_limit_exceeded', message, { headers: { 'Retry-After': '1' } });
    }
    let entry = this.open.get(key);
    if (!entry) this.open.set(key, (entry = { holder, streams: new Set() }));
    const stream = { lease, controller: new AbortController() };
    entry.streams.add(stream);
    if (this.leases === 'process') this.perWorkspace.add(holder.workspaceId);
    let closed = false;
    return {
      signal: stream.controller.signal,
      close: () => {
        if (closed) return;
        closed = true;
        entry.streams.delete(stream);
        if (entry.streams.size === 0) this.open.delete(key);
        if (this.leases === 'process') return this.perWorkspace.remove(holder.workspaceId);
        this.db.execute(sql`delete from stream_leases where id = ${lease}`).catch((err: unknown) => log.warn({ err }, 'could not give a stream lease back'));
      },
    };
  }

  /** The counts of this process alone (`leases: 'process'`): checked and taken in the same turn, so nothing comes between. */
  private countHere(key: string, workspaceId: string): { taken: boolean; holder: boolean } {
    const holder = (this.open.get(key)?.streams.size ?? 0) < MAX_STREAMS;
    const workspace = this.perWorkspace.get(workspaceId) < MAX_PER_WORKSPACE;
    return { taken: holder && workspace, holder };
  }

  /** A lease row, under the workspace's lock, when its holder and its workspace are under their limits (`leases: 'database'`). */
  private async take(key: string, workspaceId: string, lease: string): Promise<{ taken: boolean; holder: boolean }> {
    // One write, in this order: BEGIN, the lock, the count and the insert (which must read the
    // leases committed by whoever held the lock before: a statement of its own, with a snapshot
    // taken after the lock), COMMIT. The lock is held only while the server runs them: awaited
    // statement by statement, each holder kept it across a turn of this process's loop, and 200
    // streams of one workspace opened at once took 1 s to get their leases, one after the other
    // (docs/benchmark.md, nineteenth session). Expired leases (their process died) are not
    // counted; the renewal sweeps them away.
    // (The embedded database runs one transaction at a time: no lock there, db/advisory.ts.)
    const lock = isPglite(this.db) ? [] : [sql`select pg_advisory_xact_lock(hashtextextended(${`aas.streams:${workspaceId}`}, 0))`];
    const results = await transactionWhole<{ taken: boolean; holder: boolean }>(this.db, [
      ...lock,
      sql`with counts as (
            select count(*) filter (where holder = ${key}) < ${MAX_STREAMS} as holder, count(*) < ${MAX_PER_WORKSPACE} as workspace
            from stream_leases where workspace_id = ${workspaceId} and expires_at >= now()
          ), ins as (
            insert into stream_leases (id, holder, workspace_id, process, expires_at)
            select ${lease}, ${key}, ${workspaceId}, ${this.process}, now() + ${`${LEASE_SECONDS} seconds`}::interval
            from counts where counts.holder and counts.workspace
            returning id
          )
          select exists (select 1 from ins) as taken, counts.holder from counts`,
    ]);
    const [row] = results[results.length - 1]!;
    return { taken: row?.taken === true, holder: row?.holder === true };
  }

  /** Open streams and waiting requests of this process (tests, the benchmark). */
  get size(): number {
    let n = 0;
    for (const e of this.open.values()) n += e.streams.size;
    return n + this.waits.total;
  }

  /** Renews this process's leases, and sweeps away the expired ones of processes that died. */
  private async renew(): Promise<void> {
    if (this.open.size === 0 || this.leases === 'process') return;
    await this.db
      .execute(sql`update stream_leases set expires_at = now() + ${`${LEASE_SECONDS} seconds`}::interval where process = ${this.process}`)
      .catch((err: unknown) => log.warn({ err }, 'could not renew stream leases'));
    await this.db.execute(sql`delete from stream_leases where expires_at < now()`).catch((err: unknown) => log.warn({ err }, 'could not sweep expired stream leases'));
  }

  /** Event streams open here for a holder (`key:<id>` or `session:<id>`): tests. */
  openOf(holder: string): number {
    return this.open.get(holder)?.streams.size ?? 0;
  }

  /** Ends the streams whose key or session is no longer valid. */
  private async check(): Promise<void> {
    if (this.open.size === 0) return;
    // The streams open now, and only they, are judged by the answer: a stream opened while the
    // lookup is under way was not looked up (its holder had no stream before), and was just
    // checked by its own request. (Judged by the map as it was after the lookup, every stream of
    // such a holder was ended at once: 7 of 600 streams opened at the same moment, in the bench.)
    const checked = [...this.open].map(([key, entry]) => ({ key, streams: [...entry.streams] }));
    const ids = (kind: Holder['kind']) => [...this.open.values()].filter((e) => e.holder.kind === kind).map((e) => e.holder.id);
    const keyIds = ids('key');
    const sessionIds = ids('session');
    try {
      const [keys, sessions] = await Promise.all([
        keyIds.length
          ? queryRows<{ id: string }>(this.db, sql`select id from api_keys where id = any(${textArray(keyIds)}) and revoked_at is null and (expires_at is null or expires_at > now())`)
          : [],
        sessionIds.length
          ? queryRows<{ id: string }>(this.db, sql`select id from user_sessions where id = any(${textArray(sessionIds)}) and revoked_at is null and expires_at > now()`)
          : [],
      ]);
      const valid = new Set([...keys.map((k) => `key:${k.id}`), ...sessions.map((s) => `session:${s.id}`)]);
      for (const { key, streams } of checked) {
        if (valid.has(key)) continue;
        for (const s of streams) s.controller.abort();
      }
    } catch (err) {
      log.warn({ err }, 'could not check the holders of open streams');
    }
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    if (this.leases === 'process') return;
    await this.db.execute(sql`delete from stream_leases where process = ${this.process}`).catch(() => {});
  }
}
