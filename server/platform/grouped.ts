import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { reservesConnection, transaction } from '../../db/transaction';
import { ApiError } from './errors';
import { batches } from './batches';

// Transactions of many callers in one (docs/concurrency.md, "Transactions in groups"). On
// PostgreSQL each transaction holds a pooled connection through its round trips, each of which
// waits for a turn of a loop busy with hundreds of requests, and costs its BEGIN and COMMIT. Here
// the transactions asked for while a group is under way wait for it, then run at once on one
// connection in one transaction: their statements interleave, their round trips are shared, and
// they commit together. For callbacks that await every statement they send, leave nothing
// behind but their result, refuse (throw an ApiError: 404, 409…) before they write anything, and
// take no lock to decide: a row lock or an advisory lock taken by one member does not hold
// against another of its group (the same transaction), so a check-then-act under a lock would
// let every member pass. A member's refusal is its own answer and the others commit, so a
// tenant's flood of refused requests costs nobody else a second transaction. Any other failure
// (a statement's: it aborts the transaction under every member) rolls the group back, and each
// member runs again alone, so that one caller's failure never fails another's transaction.
// PGlite (one connection, turns taken by workspace: db/lanes.ts) and a transaction already under
// way run the callback alone.

/** At most this many callers in one transaction, */
const MAX_GROUP = 32;
/** and at most this many of one tenant while others wait (then the rest, in order). */
const MAX_PER_TENANT = 8;

interface Member {
  tenant: string;
  fn: (tx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

class Groups {
  private queue: Member[] = [];
  private readonly kick = batches(
    () => this.queue.length > 0,
    () => this.runGroup(),
  );

  constructor(private readonly db: Db) {}

  add(member: Member): void {
    this.queue.push(member);
    this.kick();
  }

  private alone(m: Member): Promise<void> {
    return transaction(this.db, m.fn).then(m.resolve, m.reject);
  }

  private async runGroup(): Promise<void> {
    const members = this.take();
    if (members.length === 1) return this.alone(members[0]!);
    let settled: PromiseSettledResult<unknown>[] = [];
    try {
      await transaction(this.db, async (tx) => {
        settled = await Promise.allSettled(members.map((m) => m.fn(tx)));
        if (settled.some((s) => s.status === 'rejected' && !(s.reason instanceof ApiError))) throw new GroupFailed();
        // A refusal came before its member wrote anything (the contract); that no statement of
        // the group failed meanwhile is checked before the others commit.
        if (settled.some((s) => s.status === 'rejected')) await tx.execute(sql`select 1`);
      });
    } catch {
      // Rolled back (a statement failed: it aborted the transaction under the others): every
      // member goes again, alone.
      await Promise.all(members.map((m) => this.alone(m)));
      return;
    }
    members.forEach((m, i) => {
      const s = settled[i]!;
      if (s.status === 'fulfilled') m.resolve(s.value);
      else m.reject(s.reason);
    });
  }

  /**
   * The next group, in the order asked: at most MAX_PER_TENANT of a tenant while others wait, so
   * that one tenant's flood of starts puts another's in the next group, not behind its backlog;
   * places left are then filled in order.
   */
  private take(): Member[] {
    if (this.queue.length <= MAX_GROUP) return this.queue.splice(0);
    const taken = new Set<Member>();
    const per = new Map<string, number>();
    for (const m of this.queue) {
      if (taken.size >= MAX_GROUP) break;
      const n = per.get(m.tenant) ?? 0;
      if (n >= MAX_PER_TENANT) continue;
      per.set(m.tenant, n + 1);
      taken.add(m);
    }
    for (const m of this.queue) {
      if (taken.size >= MAX_GROUP) break;
      taken.add(m);
    }
    const group = this.queue.filter((m) => taken.has(m));
    this.queue = this.queue.filter((m) => !taken.has(m));
    return group;
  }
}

class GroupFailed extends Error {}

const all = new WeakMap<Db, Groups>();

/**
 * `transaction(db, fn)`, in one with the others asked for meanwhile where the database has a pool
 * (PostgreSQL). `tenant`: whose it is (its workspace), for the fair share of each group.
 */
export function groupedTransaction<T>(db: Db, tenant: string, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (!reservesConnection(db)) return transaction(db, fn);
  let g = all.get(db);
  if (!g) all.set(db, (g = new Groups(db)));
  const groups = g;
  return new Promise<T>((resolve, reject) => groups.add({ tenant, fn, resolve: resolve as (v: unknown) => void, reject }));
}
