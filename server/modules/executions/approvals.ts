import { audit } from '../audit/record';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../../db/rows';
import type { Db } from '../../../db/client';
import { transaction } from '../../../db/transaction';
import { executions, type AwaitedCall, type DecidedBy, type StoredDecision } from '../../../db/schema';
import type { Actor } from '../actor';
import { ApiError, notFound } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { SCHEMA_BUDGET_MS, validateArguments } from '../tools/schema-pool';
import { databaseClock, type Clock, type ExecutionRow } from './lifecycle';
import { denyExpired, lockPaused, recordDecisions } from './pause';
import type { DecideInput } from './schemas';
import { PAUSED_STATUS } from '../vocabulary/statuses';

// Deciding the tool calls a paused run awaits (docs/approvals.md): POST
// /v1/executions/{id}/approvals and the dashboard's buttons. The decisions are checked first
// (known calls, edited arguments against the tool's parameters), then recorded under the run's
// row lock (pause.ts): two requests racing on two processes are serialised by it, and the second
// finds the calls decided (409). With the last call decided the run is queued again and a worker
// resumes it.

const decidedByOf = (actor: Actor): DecidedBy => (actor.kind === 'key' ? { type: 'key', id: actor.keyId } : { type: 'user', id: actor.userId });

/**
 * Records the decisions; returns the execution as written (`queued` when it resumes, still
 * `requires_action` while calls are left) and the sequence number its new events follow.
 */
export async function decideToolCalls(
  db: Db,
  actor: Actor,
  id: string,
  decisions: DecideInput['decisions'],
  clock: Clock = databaseClock,
): Promise<{ row: ExecutionRow; afterSeq: number }> {
  if (!isId('exe', id)) throw notFound('execution', id);
  const scope = and(eq(executions.id, id), eq(executions.workspaceId, actor.workspaceId), eq(executions.environment, actor.environment));
  const [seen] = await db.select().from(executions).where(scope);
  if (!seen) throw notFound('execution', id);
  const notAwaiting = (row: ExecutionRow) =>
    new ApiError('execution_not_awaiting_approval', `This execution is not awaiting approval (status '${row.status}')`);
  // A call the service denied at its expiry answers so whatever the run did since (it resumed, finished).
  for (const [n, d] of decisions.entries()) {
    const call = seen.steps.flatMap((s) => s.toolCalls).find((c) => c.id === d.toolCallId);
    if (call?.approval && isExpiry(call.approval)) throw expiredError(n, call.id, call.approval.decidedAt);
  }
  if (seen.status !== PAUSED_STATUS || !seen.approval) throw notAwaiting(seen);

  // The checks that need no lock: the calls exist, each once; edited arguments fit the tool.
  const ids = new Set<string>();
  const decidedAt = new Date().toISOString();
  const decided = new Map<string, StoredDecision>();
  for (const [n, d] of decisions.entries()) {
    const call = seen.approval.calls.find((c) => c.id === d.toolCallId);
    if (!call && seen.steps.some((s) => s.toolCalls.some((c) => c.id === d.toolCallId && c.approval))) {
      throw new ApiError('tool_call_already_decided', `The tool call '${d.toolCallId.slice(0, 64)}' was decided already`, { param: `decisions.${n}.toolCallId` });
    }
    if (!call) throw new ApiError('invalid_parameter', `'${d.toolCallId.slice(0, 64)}' is not a tool call this execution awaits a decision on`, { param: `decisions.${n}.toolCallId` });
    if (ids.has(d.toolCallId)) throw new ApiError('invalid_parameter', 'This tool call is decided twice in the request', { param: `decisions.${n}.toolCallId` });
    ids.add(d.toolCallId);
    if (d.arguments !== undefined && !d.approve) {
      throw new ApiError('parameter_conflict', "'arguments' goes with 'approve: true' only (a denied call does not run)", { param: `decisions.${n}.arguments` });
    }
    if (d.arguments !== undefined && call.parameters) {
      const check = await validateArguments(actor.workspaceId, call.parameters, d.arguments);
      if (!check.ok) {
        const why =
          check.reason === 'invalid'
            ? `do not match the tool's parameters: ${check.message}`
            : check.reason === 'too_slow'
              ? `could not be checked against the tool's parameters within ${SCHEMA_BUDGET_MS / 1000} s`
              : 'could not be checked now: the server is busy checking tool arguments; try again';
        throw new ApiError('invalid_parameter', `The arguments ${why}`, { param: `decisions.${n}.arguments` });
      }
    }
    const trace = actor.request?.trace;
    decided.set(call.id, {
      approved: d.approve,
      reason: d.reason ?? null,
      arguments: d.arguments ?? call.arguments,
      decidedBy: decidedByOf(actor),
      decidedAt,
      ...(trace ? { trace: { traceId: trace.traceId, spanId: trace.parentId } } : {}),
    });
  }

  type Outcome = { row: ExecutionRow; afterSeq: number } | { expired: { n: number; call: AwaitedCall } };
  const outcome = await transaction(db, async (tx): Promise<Outcome> => {
    const row = await lockPaused(tx, actor, id);
    if (!row) throw notFound('execution', id);
    if (row.status !== PAUSED_STATUS || !row.approval) throw notAwaiting(row);
    // The database's clock, read under the row's lock: every process judges an expiry alike, and
    // no decision lands after `expiresAt` whether or not a worker's sweep has run (or any worker).
    const [{ now }] = (await queryRows<{ now: Date | string }>(tx, sql`select ${clock.now()} as now`)) as [{ now: Date | string }];
    const at = new Date(now);
    for (const [n, d] of decisions.entries()) {
      const call = row.approval.calls.find((c) => c.id === d.toolCallId);
      // Paused again since (another step's calls): this one was decided and ran.
      if (!call) throw new ApiError('tool_call_already_decided', `The tool call '${d.toolCallId}' was decided already`, { param: `decisions.${n}.toolCallId` });
      if (call.decision && isExpiry(call.decision)) return { expired: { n, call } };
      if (call.decision) {
        throw new ApiError('tool_call_already_decided', `The tool call '${call.id}' was ${call.decision.approved ? 'approved' : 'denied'} already`, { param: `decisions.${n}.toolCallId` });
      }
      if (new Date(call.expiresAt) <= at) {
        // Past its expiry and not yet denied by the sweep: denied here, as the sweep would have
        // (with every other call of the run past its expiry), and this request refused.
        await denyExpired(tx, row, at, clock);
        return { expired: { n, call } };
      }
    }
    // One audit record per decision (docs/audit.md): the arguments an approver edited show as a change.
    const records = decisions.map((d) => {
      const call = row.approval!.calls.find((c) => c.id === d.toolCallId)!;
      const made = decided.get(call.id)!;
      const changes: Record<string, [unknown, unknown]> = { toolCallId: [null, call.id], tool: [null, call.tool], approved: [null, made.approved] };
      if (made.reason !== null) changes.reason = [null, made.reason];
      if (JSON.stringify(made.arguments) !== JSON.stringify(call.arguments)) changes.arguments = [call.arguments, made.arguments];
      return audit(tx, actor, { action: 'approval.decided', target: { type: 'execution', id }, changes });
    });
    const [recorded] = await Promise.all([recordDecisions(tx, row, decided), ...records]);
    return { row: recorded, afterSeq: row.eventSeq };
  });
  if ('expired' in outcome) throw expiredError(outcome.expired.n, outcome.expired.call.id, outcome.expired.call.expiresAt);
  return outcome;
}

/** The service's denial of a call at its expiry (pause.ts `denyExpired`). */
const isExpiry = (d: StoredDecision) => d.decidedBy.type === 'system' && d.reason === 'expired';

const expiredError = (n: number, callId: string, at: string) =>
  new ApiError('approval_expired', `The tool call '${callId}' passed its expiry (${at}): it is denied as "expired", and can no longer be approved or denied`, {
    param: `decisions.${n}.toolCallId`,
  });
