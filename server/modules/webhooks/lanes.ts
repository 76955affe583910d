import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows, textArray } from '../../../db/rows';
import { transaction } from '../../../db/transaction';
import { advisoryXactLock } from '../../../db/advisory';

// Which endpoints get a drain now (docs/webhooks.md, "Fair delivery"). The deliveries table is the
// queue: an endpoint with a pending delivery due now is a candidate, and a process takes an
// endpoint by writing its token and a lease into the webhook's row (`drain_token`,
// `drain_until`), renewed while it sends. Exactly one drain per endpoint at a time over every
// process; a process that dies leaves a lease that runs out, and the endpoint is taken again.
//
// Fairness, as for executions (executions/admission.ts): free slots go to the workspaces with the
// fewest drains under way, one at a time (water-filling), and a workspace holds at most
// MAX_DRAINS_PER_WORKSPACE drains at once over every process. Its endpoints' backlogs — thousands
// of deliveries, retries of a dead endpoint — make each endpoint one candidate, not thousands of
// jobs: with a job per wake-up, one deleted endpoint's 241 no-op jobs filled the job fetch and
// held another workspace's delivery back 104 s (2026-11-26).

/** Drains one workspace may have under way at once, over every process. */
export const MAX_DRAINS_PER_WORKSPACE = 4;
/** How long a lease lasts unless renewed (a process renews its leases every LEASE_RENEW_MS). */
export const LEASE_SECONDS = 20;
export const LEASE_RENEW_MS = 5_000;
/** Claims of all processes take turns (the drains count and the leases written under one lock). */
const CLAIM_LOCK = 7_240_502;

export interface Lease {
  webhookId: string;
  token: string;
}

interface Candidate {
  id: string;
  workspaceId: string;
  /** Epoch ms of its earliest pending delivery. */
  due: number;
  leased: boolean;
}

/**
 * Takes up to `free` endpoints with deliveries due now, fairly between workspaces. Returns the
 * leases taken and, when an endpoint's next delivery is due later (a retry), when that is (epoch
 * ms), so the caller can look again then.
 */
export async function claimEndpoints(db: Db, free: number): Promise<{ leases: Lease[]; nextDue: number | null }> {
  return transaction(db, async (tx) => {
    await advisoryXactLock(tx, sql`${CLAIM_LOCK}`);
    // The endpoints with pending deliveries: a skip scan of the due index (one probe per endpoint,
    // however many deliveries it has), each with its earliest due time.
    const rows = await queryRows<{ id: string; ws: string; wait: number; leased: boolean }>(
      tx,
      sql`with recursive hooks(id) as (
            (select webhook_id from webhook_deliveries where status = 'pending' order by webhook_id limit 1)
            union all
            (select n.webhook_id from hooks h cross join lateral (
               select webhook_id from webhook_deliveries where status = 'pending' and webhook_id > h.id order by webhook_id limit 1) n)
          )
          select w.id, w.workspace_id as ws,
            (extract(epoch from (select min(d.next_attempt_at) from webhook_deliveries d where d.webhook_id = w.id and d.status = 'pending') - now()) * 1000)::float8 as wait,
            (w.drain_until is not null and w.drain_until > now()) as leased
          from hooks h join webhooks w on w.id = h.id
          where w.enabled`,
    );
    // Due times on this process's clock, from the database's `now()` (the deliveries' clock).
    const now = Date.now();
    const candidates: Candidate[] = rows.map((r) => ({ id: r.id, workspaceId: r.ws, due: now + Number(r.wait), leased: r.leased }));
    const ready = candidates.filter((c) => !c.leased && c.due <= now).sort((a, b) => a.due - b.due);
    const later = candidates.filter((c) => !c.leased && c.due > now).map((c) => c.due);
    const nextDue = later.length > 0 ? Math.min(...later) : null;
    if (ready.length === 0 || free <= 0) return { leases: [], nextDue: ready.length > 0 ? now : nextDue };
    const active = new Map(
      (
        await queryRows<{ ws: string; n: number }>(
          tx,
          sql`select workspace_id as ws, count(*)::int as n from webhooks where drain_until is not null and drain_until > now() group by workspace_id`,
        )
      ).map((r) => [r.ws, r.n]),
    );
    const chosen = allocate(ready, active, free);
    if (chosen.length === 0) return { leases: [], nextDue };
    const token = randomUUID();
    const taken = await queryRows<{ id: string }>(
      tx,
      sql`update webhooks set drain_token = ${token}, drain_until = now() + make_interval(secs => ${LEASE_SECONDS})
          where id = any(${textArray(chosen.map((c) => c.id))}) and enabled and (drain_until is null or drain_until <= now())
          returning id`,
    );
    return { leases: taken.map((t) => ({ webhookId: t.id, token })), nextDue };
  });
}

/**
 * Splits `free` slots between workspaces: one at a time to the workspace with the fewest drains
 * (those under way plus those given so far), never past MAX_DRAINS_PER_WORKSPACE; within a
 * workspace, the endpoint waiting longest first. `ready` is sorted by due time.
 */
export function allocate(ready: Candidate[], active: Map<string, number>, free: number): Candidate[] {
  const byWorkspace = new Map<string, Candidate[]>();
  for (const c of ready) byWorkspace.set(c.workspaceId, [...(byWorkspace.get(c.workspaceId) ?? []), c]);
  const load = new Map([...byWorkspace.keys()].map((ws) => [ws, active.get(ws) ?? 0]));
  const chosen: Candidate[] = [];
  while (chosen.length < free) {
    let best: string | undefined;
    for (const [ws, waiting] of byWorkspace) {
      if (waiting.length === 0 || load.get(ws)! >= MAX_DRAINS_PER_WORKSPACE) continue;
      // Fewest drains first; on a tie, the workspace whose endpoint has waited longest.
      if (best === undefined || load.get(ws)! < load.get(best)! || (load.get(ws) === load.get(best) && waiting[0]!.due < byWorkspace.get(best)![0]!.due)) best = ws;
    }
    if (best === undefined) break;
    chosen.push(byWorkspace.get(best)!.shift()!);
    load.set(best, load.get(best)! + 1);
  }
  return chosen;
}

/** Renews the leases this process holds; returns the webhooks whose lease was lost (taken over after it ran out). */
export async function renewLeases(db: Db, leases: Lease[]): Promise<string[]> {
  if (leases.length === 0) return [];
  const kept = await queryRows<{ id: string }>(
    db,
    sql`update webhooks set drain_until = now() + make_interval(secs => ${LEASE_SECONDS})
        where id = any(${textArray(leases.map((l) => l.webhookId))}) and drain_token = any(${textArray([...new Set(leases.map((l) => l.token))])})
        returning id`,
  );
  const ids = new Set(kept.map((k) => k.id));
  return leases.filter((l) => !ids.has(l.webhookId)).map((l) => l.webhookId);
}

/** Gives the endpoint back (its drain is done, or hands over to the next claim). */
export async function releaseLease(db: Db, lease: Lease): Promise<void> {
  await db.execute(sql`update webhooks set drain_token = null, drain_until = null where id = ${lease.webhookId} and drain_token = ${lease.token}`);
}
