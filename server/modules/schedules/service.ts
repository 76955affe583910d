import { audit, changesOf, emitAudited } from '../audit/record';
import { and, eq, getTableColumns, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { transaction } from '../../../db/transaction';
import { agents, conversations, schedules } from '../../../db/schema';
import type { Actor } from '../actor';
import { ApiError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { keysetList } from '../../platform/keyset';
import { assertUnderLimit } from '../../platform/resource-limit';
import { assertSafeKeys } from '../../platform/metadata';
import type { Page, PageParams } from '../../platform/pagination';
import { enqueue, executionView } from '../executions/engine';
import type { ExecutionView } from '../executions/schemas';
import { MAX_SCHEDULES, type createScheduleInput, type scheduleSchema, type updateScheduleInput } from './schemas';
import { checkTimeZone } from '../vocabulary/time-zones';
import { checkCron, HORIZON_MS, nextOccurrence, nextOccurrences } from './timing';

// Schedules (docs/api.md, "Schedules"): create, list, read, change, delete and run now, in the
// caller's workspace and environment. What a schedule stores decides when it fires: `next_run_at`
// is computed here whenever the cron, the zone, `enabled` or `endAt` change, and moved on by the
// ticker (ticker.ts) as occurrences pass — so `nextRunAt` is always current.

export type ScheduleView = z.infer<typeof scheduleSchema>;
type Owner = Pick<Actor, 'workspaceId' | 'environment'>;
/** The key, when a key calls: its runs are that key's (budgets, usage, audit). */
const keyOf = (caller: Actor): string | null => (caller.kind === 'key' ? caller.keyId : null);
type ScheduleRow = typeof schedules.$inferSelect;
type CreateInput = z.infer<typeof createScheduleInput>;
type UpdateInput = Omit<z.infer<typeof updateScheduleInput>, 'id'>;

const invalid = (param: string, message: string) => new ApiError('invalid_parameter', message, { param });
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function scheduleView(row: ScheduleRow): ScheduleView {
  return {
    id: row.id,
    agentId: row.agentId,
    cron: row.cron,
    timezone: row.timezone,
    input: row.input,
    conversationId: row.conversationId,
    overlap: row.overlap,
    endAt: iso(row.endAt),
    enabled: row.enabled,
    metadata: row.metadata,
    label: row.label,
    nextRunAt: iso(row.nextRunAt),
    lastRunAt: iso(row.lastRunAt),
    lastExecutionId: row.lastExecutionId,
    environment: row.environment,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const scheduleList = keysetList({ name: 'schedules', prefix: 'sch', table: schedules, columns: getTableColumns(schedules), filters: { agentId: schedules.agentId } });

/** What zod cannot see in the raw input: a metadata key named like an inherited property. */
export function assertSafeScheduleInput(raw: unknown): void {
  assertSafeKeys(raw, 'metadata');
}

// ---- checks ----

type Read = { ok: true; value: string } | { ok: false; param: 'cron' | 'timezone'; message: string };

/** The cron and the zone as checked (timing.ts), with the refusal's field and message: one wording for a write and a preview. */
function readCron(cron: string): Read {
  const c = checkCron(cron);
  return c.ok ? c : { ok: false, param: 'cron', message: `'cron' ${c.message}` };
}
function readZone(zone: string): Read {
  const z = checkTimeZone(zone);
  return z.ok ? z : { ok: false, param: 'timezone', message: `'timezone': ${z.message}` };
}
function orRefuse(read: Read): string {
  if (!read.ok) throw invalid(read.param, read.message);
  return read.value;
}
const checkedCron = (cron: string) => orRefuse(readCron(cron));
const checkedZone = (zone: string) => orRefuse(readZone(zone));

/**
 * What a run of the schedule sends `startExecution` (an occurrence's, or a run now): its input
 * and metadata, its conversation if it continues one — queued behind a busy one when `overlap`
 * is `enqueue` — and what started it.
 */
export function scheduledRun(s: ScheduleRow, scheduledFor: Date) {
  return {
    input: {
      input: s.input,
      ...(s.conversationId ? { conversationId: s.conversationId, ifBusy: s.overlap === 'enqueue' ? ('enqueue' as const) : ('reject' as const) } : {}),
      metadata: s.metadata,
      ...(s.label ? { label: s.label } : {}),
    },
    trigger: { type: 'schedule' as const, scheduleId: s.id, scheduledFor: scheduledFor.toISOString() },
  };
}

const noRun = (cron: string) =>
  `'cron' has no run within a year: '${cron}' next runs more than ${Math.floor(HORIZON_MS / 86_400_000)} days from now (a schedule must run at least once a year)`;

/**
 * When the schedule runs next, from `now`: null when it is disabled, or when its next occurrence
 * comes after `endAt`. Refused (400), whether or not it is enabled: a cron with no run within a
 * year (timing.ts, HORIZON_MS), an `endAt` already past, and an `endAt` before the first run —
 * each would leave a schedule that never runs.
 */
function nextRun(s: { cron: string; timezone: string; enabled: boolean; endAt: Date | null }, now: Date): Date | null {
  if (s.endAt && s.endAt.getTime() <= now.getTime()) throw invalid('endAt', "'endAt' must be in the future");
  const next = nextOccurrence(s.cron, s.timezone, now);
  if (!next) throw invalid('cron', noRun(s.cron));
  if (s.endAt && next.getTime() > s.endAt.getTime()) {
    throw invalid('endAt', `'endAt' comes before the schedule's first run (${next.toISOString()}): it would never run`);
  }
  return s.enabled ? next : null;
}

/** The agent must be the owner's and not deleted; its row is share-locked, so a concurrent delete waits for this transaction (and then deletes the schedule too). */
async function lockAgent(tx: Db, owner: Owner, agentId: string, label: string | null = null): Promise<void> {
  const missing = new ApiError('resource_not_found', `No such agent: '${agentId.slice(0, 64)}'`, { param: 'agentId' });
  if (!isId('agt', agentId)) throw missing;
  const [row] = await tx
    .select({ id: agents.id, labels: agents.labels })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.workspaceId, owner.workspaceId), eq(agents.environment, owner.environment), isNull(agents.deletedAt)))
    .for('share');
  if (!row) throw missing;
  // A label the agent has now (removed later, its occurrences are skipped saying so: docs/versions.md).
  if (label !== null && !Object.hasOwn(row.labels, label)) throw invalid('label', `The agent has no label '${label.slice(0, 40)}'`);
}

/** A conversation every run continues: the owner's, and the agent's. */
async function checkConversation(tx: Db, owner: Owner, agentId: string, id: string): Promise<void> {
  const missing = new ApiError('resource_not_found', `No such conversation: '${id.slice(0, 64)}'`, { param: 'conversationId' });
  if (!isId('conv', id)) throw missing;
  const [row] = await tx
    .select({ agentId: conversations.agentId })
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.workspaceId, owner.workspaceId), eq(conversations.environment, owner.environment)));
  if (!row) throw missing;
  if (row.agentId !== agentId) throw invalid('conversationId', 'This conversation belongs to another agent');
}

// ---- operations ----

const owned = (owner: Owner, id: string) => and(eq(schedules.id, id), eq(schedules.workspaceId, owner.workspaceId), eq(schedules.environment, owner.environment));

async function findSchedule(db: Db, owner: Owner, id: string): Promise<ScheduleRow | null> {
  if (!isId('sch', id)) return null;
  const [row] = await db.select().from(schedules).where(owned(owner, id));
  return row ?? null;
}

export async function createSchedule(db: Db, actor: Actor, input: CreateInput, now = new Date()): Promise<ScheduleView> {
  const cron = checkedCron(input.cron);
  const timezone = checkedZone(input.timezone);
  const endAt = input.endAt === null ? null : new Date(input.endAt);
  return transaction(db, async (tx) => {
    // The limit first (its lock orders concurrent creates, and a create refused by it computes
    // no occurrence), then the first run, then the agent (share-locked) and the conversation.
    await assertUnderLimit(tx, schedules, actor, { name: 'schedules', max: MAX_SCHEDULES, code: 'schedule_limit_reached' });
    const nextRunAt = nextRun({ cron, timezone, enabled: input.enabled, endAt }, now);
    await lockAgent(tx, actor, input.agentId, input.label);
    if (input.conversationId !== null) await checkConversation(tx, actor, input.agentId, input.conversationId);
    const [row] = await tx
      .insert(schedules)
      .values({
        id: newId('sch'),
        workspaceId: actor.workspaceId,
        environment: actor.environment,
        agentId: input.agentId,
        cron,
        timezone,
        input: input.input,
        conversationId: input.conversationId,
        overlap: input.overlap,
        endAt,
        enabled: input.enabled,
        metadata: input.metadata,
        label: input.label,
        nextRunAt,
        // Its occurrences are the creating key's runs (null: made in the dashboard).
        keyId: keyOf(actor),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const view = scheduleView(row!);
    await emitAudited(tx, actor, 'schedule.created', view, actor, { action: 'schedule.created', target: { type: 'schedule', id: view.id }, changes: changesOf(null, view, SCHEDULE_AUDITED) });
    return view;
  });
}

export async function listSchedules(db: Db, actor: Owner, params: PageParams & { agentId?: string }): Promise<Page<ScheduleView>> {
  const page = await scheduleList.page(db, actor, params);
  return { ...page, data: page.data.map((row) => scheduleView(row as ScheduleRow)) };
}

export async function getSchedule(db: Db, actor: Owner, id: string): Promise<ScheduleView> {
  const row = await findSchedule(db, actor, id);
  if (!row) throw notFound('schedule', id);
  return scheduleView(row);
}

/** What a schedule's audit records show of it (what a caller sets; not the times the service moves). */
const SCHEDULE_AUDITED = ['agentId', 'cron', 'timezone', 'input', 'conversationId', 'overlap', 'endAt', 'enabled', 'metadata', 'label'] as const;

/** Changes the given fields; `nextRunAt` is computed again from now when the timing changed. `{}` changes nothing. */
export async function updateSchedule(db: Db, actor: Owner, id: string, input: UpdateInput, now = new Date()): Promise<ScheduleView> {
  const cron = input.cron === undefined ? undefined : checkedCron(input.cron);
  const timezone = input.timezone === undefined ? undefined : checkedZone(input.timezone);
  if (Object.values(input).every((v) => v === undefined)) return getSchedule(db, actor, id);
  if (!isId('sch', id)) throw notFound('schedule', id);
  return transaction(db, async (tx) => {
    const [current] = await tx.select().from(schedules).where(owned(actor, id)).for('update');
    if (!current) throw notFound('schedule', id);
    const changes: Partial<typeof schedules.$inferInsert> = {};
    for (const field of ['input', 'overlap', 'enabled', 'metadata', 'conversationId', 'label'] as const) {
      if (input[field] !== undefined) Object.assign(changes, { [field]: input[field] });
    }
    if (cron !== undefined) changes.cron = cron;
    if (timezone !== undefined) changes.timezone = timezone;
    if (input.endAt !== undefined) changes.endAt = input.endAt === null ? null : new Date(input.endAt);
    if (input.conversationId) await checkConversation(tx, actor, current.agentId, input.conversationId);
    if (input.label) await lockAgent(tx, actor, current.agentId, input.label);
    const next = { ...current, ...changes } as ScheduleRow;
    const timing = cron !== undefined || timezone !== undefined || input.endAt !== undefined || (input.enabled !== undefined && input.enabled !== current.enabled);
    if (timing) {
      // Enabling a schedule whose end has passed needs a new `endAt` (or none).
      if (next.enabled && next.endAt && next.endAt.getTime() <= now.getTime() && input.endAt === undefined) {
        throw invalid('endAt', "This schedule's 'endAt' has passed; set a later 'endAt' (or null) to enable it");
      }
      changes.nextRunAt = nextRun(next, now);
    }
    const [row] = await tx
      .update(schedules)
      .set({ ...changes, updatedAt: now })
      .where(eq(schedules.id, id))
      .returning();
    const view = scheduleView(row!);
    await emitAudited(tx, actor, 'schedule.updated', view, actor, { action: 'schedule.updated', target: { type: 'schedule', id }, changes: changesOf(scheduleView(current), view, SCHEDULE_AUDITED) });
    return view;
  });
}

export async function deleteSchedule(db: Db, actor: Owner, id: string): Promise<{ id: string; deleted: true }> {
  if (!isId('sch', id)) throw notFound('schedule', id);
  return transaction(db, async (tx) => {
    const [row] = await tx.delete(schedules).where(owned(actor, id)).returning();
    if (!row) throw notFound('schedule', id);
    await emitAudited(tx, actor, 'schedule.deleted', scheduleView(row), actor, { action: 'schedule.deleted', target: { type: 'schedule', id }, changes: { agentId: [row.agentId, null], cron: [row.cron, null] } });
    return { id, deleted: true as const };
  });
}

/**
 * Deletes an agent's schedules with their `schedule.deleted` events and audit records (in the
 * agent's delete transaction: the records say the agent's deletion took them).
 */
export async function deleteAgentSchedules(tx: Db, actor: Actor, agentId: string): Promise<void> {
  const rows = await tx
    .delete(schedules)
    .where(and(eq(schedules.workspaceId, actor.workspaceId), eq(schedules.environment, actor.environment), eq(schedules.agentId, agentId)))
    .returning();
  for (const row of rows) {
    await emitAudited(tx, actor, 'schedule.deleted', scheduleView(row), actor, {
      action: 'schedule.deleted',
      target: { type: 'schedule', id: row.id },
      changes: { agentId: [row.agentId, null], cron: [row.cron, null], cause: [null, 'agent.deleted'] },
    });
  }
}

/**
 * One run now, outside the cron (`nextRunAt` is unchanged), on behalf of the caller: an execution with `trigger.type`
 * `schedule` and `scheduledFor` now, like an occurrence's. A disabled schedule runs too: running
 * it is asked for explicitly. Its conversation busy: 409 `conversation_busy` as for `execute`, or a
 * queued turn when the schedule's `overlap` is `enqueue`.
 */
export async function runScheduleNow(db: Db, actor: Actor, id: string): Promise<ExecutionView> {
  const s = await findSchedule(db, actor, id);
  if (!s) throw notFound('schedule', id);
  return transaction(db, async (tx) => {
    const run = scheduledRun(s, new Date());
    // The caller's run: a key's "run now" is that key's (its `block` budget refuses it with 402,
    // its spend counts it), whoever created the schedule; a member's in the dashboard is no key's.
    const keyId = keyOf(actor);
    const row = await enqueue(tx, actor, s.agentId, run.input, { trigger: run.trigger, ...(keyId ? { keyId } : {}), trace: actor.request?.trace ?? null });
    await Promise.all([
      tx.update(schedules).set({ lastRunAt: row.createdAt, lastExecutionId: row.id }).where(eq(schedules.id, s.id)),
      audit(tx, actor, { action: 'schedule.run_now', target: { type: 'schedule', id: s.id }, changes: { lastExecutionId: [s.lastExecutionId, row.id] } }),
    ]);
    return executionView(row);
  });
}

/** The next `count` runs of a cron in a zone, or why it is refused (the same checks and words as a create). */
export function previewSchedule(cron: string, zone: string, count = 5, now = new Date()) {
  const c = readCron(cron);
  if (!c.ok) return c;
  const z = readZone(zone);
  if (!z.ok) return z;
  const runs = nextOccurrences(c.value, z.value, now, count);
  if (runs.length === 0) return { ok: false as const, param: 'cron' as const, message: noRun(c.value) };
  return { ok: true as const, cron: c.value, timezone: z.value, runs: runs.map((d) => d.toISOString()) };
}

/**
 * A stored schedule's next `count` runs, as its ticker will make them: none while it is paused or
 * past its end, from its `nextRunAt` on, none after its `endAt`. The caller's workspace and
 * environment only (another's is not found, like any read).
 */
export async function upcomingRuns(db: Db, actor: Owner, id: string, count = 5): Promise<{ id: string; timezone: string; runs: string[] }> {
  const s = await findSchedule(db, actor, id);
  if (!s) throw notFound('schedule', id);
  const first = s.enabled ? s.nextRunAt : null;
  if (!first) return { id: s.id, timezone: s.timezone, runs: [] };
  const runs = [first, ...nextOccurrences(s.cron, s.timezone, first, count - 1)].filter((d) => !s.endAt || d.getTime() <= s.endAt.getTime());
  return { id: s.id, timezone: s.timezone, runs: runs.map((d) => d.toISOString()) };
}
