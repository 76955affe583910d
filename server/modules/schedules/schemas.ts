import { z } from 'zod';
import { ENVIRONMENTS, SCHEDULE_OVERLAPS } from '../../../db/schema/values';
import { metadataSchema } from '../../platform/metadata';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';
import { executionSchema } from '../executions/schemas';

// Request and response shapes of /v1/schedules (docs/api.md, "Schedules"; how they run:
// docs/schedules.md). zod checks shapes and bounds; service.ts checks the cron, the zone, the agent
// and the conversation.

/** Schedules one workspace may have per environment. */
export const MAX_SCHEDULES = 100;
/** The longest input a schedule sends (an execution's). */
export const MAX_SCHEDULE_INPUT = 100_000;

const EXAMPLE_ID = 'sch_01JD8X41B2C3D4E5F6G7H8J9K0';
const EXAMPLE_AGENT = 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK';
const EXAMPLE_EXECUTION = 'exe_01JD8X40A1B2C3D4E5F6G7H8J9';
const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });

const fields = {
  cron: z.string().max(200).meta({
    description:
      'When it runs: five cron fields (minute hour day-of-month month day-of-week), read in `timezone`. Ranges, lists, steps, ' +
      'names (`MON-FRI`), `L` and `#` work; seconds, `@daily`-style shorthands and `H` are refused. At most once a minute.',
    example: '0 9 * * MON-FRI',
  }),
  timezone: z.string().max(100).meta({
    description:
      'The IANA time zone the cron is read in, e.g. `Europe/Berlin`; answered in its canonical form. On a daylight-saving day a ' +
      'daily schedule still runs exactly once. Default: `UTC`.',
    example: 'Europe/Berlin',
  }),
  input: z.string().min(1).max(MAX_SCHEDULE_INPUT).meta({ description: 'The user message each run sends the agent (1–100,000 characters).', example: 'Summarise yesterday’s orders.' }),
  conversationId: z.string().nullable().meta({
    description: 'Every run continues this conversation of the agent. `null`: each run starts a new conversation.',
    example: null,
  }),
  overlap: z.enum(SCHEDULE_OVERLAPS).meta({
    description:
      'When an occurrence comes while the previous run is still queued or running: `skip` creates nothing (default), `enqueue` ' +
      'creates the run, which starts when the previous one has finished.',
    example: 'skip',
  }),
  endAt: z.iso.datetime({ offset: true }).nullable().meta({ description: 'After this instant the schedule is disabled (ISO 8601, in the future). `null`: never.', example: null }),
  enabled: z.boolean().meta({ description: '`false`: it does not run until enabled again (it then runs from its next occurrence on). Default: `true`.', example: true }),
  metadata: metadataSchema,
  label: z.string().max(40).nullable().meta({
    description: 'Its runs run the version of the agent this label points at when each run starts (docs/versions.md). `null`: as an execute without one (`production`’s, or the continued conversation’s version).',
    example: 'production',
  }),
};

export const createScheduleInput = z
  .strictObject({
    agentId: z.string().meta({ description: 'The agent to run (`agt_…`).', example: EXAMPLE_AGENT }),
    cron: fields.cron,
    input: fields.input,
    timezone: fields.timezone.default('UTC'),
    conversationId: fields.conversationId.default(null),
    overlap: fields.overlap.default('skip'),
    endAt: fields.endAt.default(null),
    enabled: fields.enabled.default(true),
    metadata: fields.metadata.default({}).meta({ description: 'Your own key-value pairs; each run’s execution carries them too.' }),
    label: fields.label.default(null),
  })
  .meta({ id: 'CreateScheduleRequest' });

const scheduleId = z.string().meta({ description: 'The id of the schedule (`sch_…`).', example: EXAMPLE_ID });
export const scheduleIdInput = z.strictObject({ id: scheduleId });

export const updateScheduleInput = z
  .strictObject({
    id: scheduleId,
    cron: fields.cron.optional(),
    timezone: fields.timezone.optional(),
    input: fields.input.optional(),
    conversationId: fields.conversationId.optional(),
    overlap: fields.overlap.optional(),
    endAt: fields.endAt.optional(),
    enabled: fields.enabled.optional(),
    metadata: fields.metadata.optional().meta({ description: 'Replaces the whole metadata; `{}` removes it all.' }),
    label: fields.label.optional(),
  })
  .meta({ description: 'The fields to change; the others keep their value. The agent cannot change: create another schedule.' });

export const listSchedulesInput = z.strictObject({
  ...pageQuerySchema,
  agentId: z.string().meta({ description: 'Only this agent’s schedules.' }).optional(),
});

// ---- responses ----

export const scheduleSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier (`sch_…`).', example: EXAMPLE_ID }),
    agentId: z.string().meta({ example: EXAMPLE_AGENT }),
    cron: z.string().meta({ example: '0 9 * * MON-FRI' }),
    timezone: z.string().meta({ example: 'Europe/Berlin' }),
    input: z.string().meta({ example: 'Summarise yesterday’s orders.' }),
    conversationId: z.string().nullable().meta({ example: null }),
    overlap: z.enum(SCHEDULE_OVERLAPS).meta({ example: 'skip' }),
    endAt: timestamp.nullable().meta({ example: null }),
    enabled: z.boolean().meta({ description: 'Whether it runs; a schedule past its `endAt` is disabled.', example: true }),
    metadata: z.object({}).catchall(z.string()).meta({ description: 'Your own key-value pairs.', example: { team: 'reports' } }),
    label: z.string().nullable().meta({ description: 'The label whose version its runs run; `null`: as an execute without one.', example: null }),
    nextRunAt: timestamp.nullable().meta({ description: 'The next occurrence; `null` when disabled.' }),
    lastRunAt: timestamp.nullable().meta({ description: 'The occurrence of its latest run; `null` before the first.' }),
    lastExecutionId: z.string().nullable().meta({ description: 'The execution of its latest run.', example: EXAMPLE_EXECUTION }),
    environment: z.enum(ENVIRONMENTS).meta({ example: 'live' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Schedule' });

export const scheduleListSchema = pageEnvelopeSchema(scheduleSchema).meta({ id: 'ScheduleList' });

export const deletedScheduleSchema = z
  .object({
    id: z.string().meta({ description: 'The id of the deleted schedule.', example: EXAMPLE_ID }),
    deleted: z.literal(true).meta({ description: 'Always `true`.', example: true }),
  })
  .meta({ id: 'DeletedSchedule' });

/** `POST /v1/schedules/{id}/run`: the execution it started. */
export const scheduleRunSchema = executionSchema;

/** Dashboard only: when a cron would run, before it is saved (the schedule form's helper). */
export const previewScheduleInput = z.strictObject({ cron: z.string().max(200), timezone: z.string().max(100) });
/** Dashboard only: a stored schedule's coming runs (its page's "next runs"). */
export const upcomingRunsInput = z.strictObject({ id: scheduleId, count: z.number().int().min(1).max(10).default(5) });
export const upcomingRunsSchema = z.object({
  id: z.string(),
  timezone: z.string(),
  /** None when it is paused or has ended; those past its `endAt` are left out. */
  runs: z.array(timestamp),
});

export const schedulePreviewSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), cron: z.string(), timezone: z.string(), runs: z.array(timestamp) }),
  z.object({ ok: z.literal(false), param: z.enum(['cron', 'timezone']), message: z.string() }),
]);
