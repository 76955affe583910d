import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import type { Environment } from '../../../db/schema';
import { PLAN_CONCURRENCY } from '../ratelimit/plans';
import { advisoryXactLock } from '../../../db/advisory';
import { sqlState } from '../../../db/errors';

// Who may start running now (docs/concurrency.md). A workspace runs at most its plan's number of
// executions at once per environment, counted over every process: each decision to start runs
// (the fair claim of queued ones, or a `wait`/`stream` run starting in place) holds the tenant's
// advisory lock for the rest of its transaction, counts the tenant's running executions, and
// starts no more than the limit allows. Finishing needs no lock: it only lowers the count.
//
// Fairness: when slots free up, queued runs are handed out tenant by tenant, the tenant with the
// fewest running first (water-filling), so a workspace with thousands queued never holds back
// another workspace's next run by more than one slot's turnover.

export interface Tenant {
  workspaceId: string;
  environment: Environment;
}

/** The tenant's concurrency limit, from its workspace row `w` (the plan's, or the enterprise custom one). */
export const limitOf = (w: string): SQL =>
  sql.raw(
    `(case ${w}.plan when 'starter' then ${PLAN_CONCURRENCY.starter} when 'professional' then ${PLAN_CONCURRENCY.professional} ` +
      `else coalesce(${w}.custom_concurrency, ${PLAN_CONCURRENCY.enterprise}) end)`,
  );

/**
 * Holds the tenant's admission lock until the transaction ends (serialises its start decisions,
 * nothing else). Sent at once: a drizzle query starts only when something awaits it, and a count
 * sent before the lock would read the tenant's running runs before another claimer committed.
 */
export function lockTenant(tx: Db, t: Tenant): Promise<unknown> {
  return advisoryXactLock(tx, sql`hashtextextended(${`aas.exec:${t.workspaceId}:${t.environment}`}, 0)`);
}

/**
 * Whether a run of the tenant may start now, in place: under its limit and with nothing of its
 * own queued ahead (queued runs keep their order). A boolean expression for a statement sent
 * under `lockTenant` (after it, on the same connection: its snapshot is taken once the lock is
 * held); true or false, never null.
 */
export const mayStartNow = (t: Tenant): SQL<boolean> =>
  sql<boolean>`coalesce((select (select count(*) from executions r
                 where r.workspace_id = ${t.workspaceId} and r.environment = ${t.environment} and r.status = 'running') < ${limitOf('w')}
           and not exists (select 1 from executions q
                 where q.workspace_id = ${t.workspaceId} and q.environment = ${t.environment} and q.status = 'queued' and q.waiting_turn is null)
        from workspaces w where w.id = ${t.workspaceId}), false)`;

/**
 * The exact admission check of a run starting in place on PostgreSQL (docs/concurrency.md,
 * "Admission"): a statement sent right behind `lockTenant`, with the run's writes and the
 * transaction's COMMIT pipelined behind it, so that the tenant's lock is held for the server's
 * work alone, never for a turn of the caller's event loop. It fails with division_by_zero
 * (22012, `refusedAdmission`) when the tenant may not start a run now; the statements behind it
 * then fail and the COMMIT rolls the transaction back.
 */
export function admissionCheck(tx: Db, t: Tenant): Promise<unknown> {
  return tx.execute(sql`select 1 / (${mayStartNow(t)})::int as admitted`).then((r) => r);
}

/** The admission check said no (`admissionCheck`): another start took the tenant's last slot. */
export const refusedAdmission = (err: unknown): boolean => sqlState(err) === '22012';

export interface Candidate extends Tenant {
  limit: number;
  running: number;
}

/**
 * The tenants with queued executions, each with its limit and running count: a skip scan of
 * the queued index (one probe per tenant, however many runs each has queued).
 */
export async function queuedTenants(db: Db): Promise<Candidate[]> {
  const rows = await queryRows<{ ws: string; env: Environment; lim: number; running: number }>(
    db,
    sql`with recursive tenants(ws, env) as (
          (select workspace_id, environment from executions where status = 'queued' and waiting_turn is null order by workspace_id, environment limit 1)
          union all
          (select q.workspace_id, q.environment from tenants t cross join lateral (
             select workspace_id, environment from executions
             where status = 'queued' and waiting_turn is null and (workspace_id, environment) > (t.ws, t.env)
             order by workspace_id, environment limit 1) q)
        )
        select t.ws, t.env, ${limitOf('w')}::int as lim,
          (select count(*)::int from executions r where r.workspace_id = t.ws and r.environment = t.env and r.status = 'running') as running
        from tenants t join workspaces w on w.id = t.ws`,
  );
  return rows.map((r) => ({ workspaceId: r.ws, environment: r.env, limit: r.lim, running: r.running }));
}

/**
 * Splits `free` slots between tenants: one at a time to the tenant with the fewest running
 * (counting what it was given so far), never past a tenant's limit. Returns how many each gets.
 */
export function allocate(candidates: Candidate[], free: number): Map<Candidate, number> {
  const given = new Map<Candidate, number>();
  const load = (c: Candidate) => c.running + (given.get(c) ?? 0);
  for (let i = 0; i < free; i++) {
    let best: Candidate | undefined;
    for (const c of candidates) {
      if (load(c) >= c.limit) continue;
      if (!best || load(c) < load(best)) best = c;
    }
    if (!best) break;
    given.set(best, (given.get(best) ?? 0) + 1);
  }
  return given;
}
