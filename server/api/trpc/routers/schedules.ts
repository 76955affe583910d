import {
  createScheduleInput,
  deletedScheduleSchema,
  previewScheduleInput,
  schedulePreviewSchema,
  listSchedulesInput,
  scheduleIdInput,
  upcomingRunsInput,
  upcomingRunsSchema,
  scheduleListSchema,
  scheduleRunSchema,
  scheduleSchema,
  updateScheduleInput,
} from '../../../modules/schedules/schemas';
import { assertSafeScheduleInput, createSchedule, deleteSchedule, getSchedule, listSchedules, previewSchedule, runScheduleNow, upcomingRuns, updateSchedule } from '../../../modules/schedules/service';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { apiProcedure, router } from '../init';

// /v1/schedules (docs/api.md, "Schedules"): an agent run on a cron. Writes need `agents:write`
// (a schedule runs its agent, so `run` needs it too), reads `agents:read`.

const tags = ['Schedules'];

/** Previews one signed-in user may ask for in a minute: the dialog asks once its fields settle (250 ms). */
export const PREVIEWS_PER_MINUTE = 60;

/** Checks on the raw input that zod cannot make, before it parses. */
const safeInput = apiProcedure.use(async ({ getRawInput, next }) => {
  assertSafeScheduleInput(await getRawInput().catch(() => undefined));
  return next();
});

export const schedulesRouter = router({
  create: safeInput
    .meta({
      scope: 'agents:write',
      successStatus: 201,
      errors: ['resource_not_found', 'schedule_limit_reached'],
      openapi: {
        method: 'POST',
        path: '/v1/schedules',
        tags,
        summary: 'Create a schedule',
        description:
          'Runs the agent on a cron, in a time zone: each occurrence creates exactly one execution (`trigger.type` `schedule`), ' +
          'whatever the number of processes. At most 100 schedules per workspace and environment.',
        successDescription: 'The new schedule, with its `nextRunAt`',
      },
    })
    .input(createScheduleInput)
    .output(scheduleSchema)
    .mutation(({ ctx, input }) => createSchedule(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: PAGE_ERRORS,
      openapi: { method: 'GET', path: '/v1/schedules', tags, summary: 'List schedules', successDescription: 'Schedules of this workspace and environment, newest first' },
    })
    .input(listSchedulesInput)
    .output(scheduleListSchema)
    .query(({ ctx, input }) => listSchedules(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/schedules/{id}', tags, summary: 'Retrieve a schedule', successDescription: 'The schedule' },
    })
    .input(scheduleIdInput)
    .output(scheduleSchema)
    .query(({ ctx, input }) => getSchedule(ctx.db, ctx.actor, input.id)),

  update: safeInput
    .meta({
      scope: 'agents:write',
      errors: ['resource_not_found'],
      openapi: {
        method: 'PATCH',
        path: '/v1/schedules/{id}',
        tags,
        summary: 'Update a schedule',
        description: 'Changes the fields given and keeps the others. A change of `cron`, `timezone`, `endAt` or `enabled` computes `nextRunAt` again from now.',
        successDescription: 'The updated schedule',
      },
    })
    .input(updateScheduleInput)
    .output(scheduleSchema)
    .mutation(({ ctx, input: { id, ...fields } }) => updateSchedule(ctx.db, ctx.actor, id, fields)),

  delete: apiProcedure
    .meta({
      scope: 'agents:write',
      errors: ['resource_not_found'],
      openapi: {
        method: 'DELETE',
        path: '/v1/schedules/{id}',
        tags,
        summary: 'Delete a schedule',
        description: 'It runs no more; its past executions stay readable (`GET /v1/executions?scheduleId=`), and a run in progress goes on.',
        successDescription: 'The schedule is deleted',
      },
    })
    .input(scheduleIdInput)
    .output(deletedScheduleSchema)
    .mutation(({ ctx, input }) => deleteSchedule(ctx.db, ctx.actor, input.id)),

  run: apiProcedure
    .meta({
      scope: 'agents:write',
      successStatus: 202,
      errors: ['resource_not_found', 'conversation_busy', 'idempotency_conflict'],
      openapi: {
        method: 'POST',
        path: '/v1/schedules/{id}/run',
        tags,
        summary: 'Run a schedule now',
        description:
          'One run now, outside the cron (`nextRunAt` does not change), also when the schedule is disabled. Its execution carries ' +
          '`trigger: {type: "schedule", scheduleId, scheduledFor}` with `scheduledFor` now.',
        successDescription: 'The execution, queued',
      },
    })
    .input(scheduleIdInput)
    .output(scheduleRunSchema)
    .mutation(({ ctx, input }) => runScheduleNow(ctx.db, ctx.actor, input.id)),

  /** Dashboard only: the schedule form's "next five runs" as the user types (the server's own checks and zone rules). */
  preview: apiProcedure
    // Dashboard only (no REST route). Each preview computes occurrences: a user's are counted.
    .meta({ scope: 'agents:read', costly: { name: 'schedule preview', perMinute: PREVIEWS_PER_MINUTE } })
    .input(previewScheduleInput)
    .output(schedulePreviewSchema)
    .query(({ input }) => previewSchedule(input.cron, input.timezone)),

  /** Dashboard only: a saved schedule's next runs (its page), counted with the previews (each computes occurrences). */
  upcoming: apiProcedure
    .meta({ scope: 'agents:read', costly: { name: 'schedule preview', perMinute: PREVIEWS_PER_MINUTE } })
    .input(upcomingRunsInput)
    .output(upcomingRunsSchema)
    .query(({ ctx, input }) => upcomingRuns(ctx.db, ctx.actor, input.id, input.count)),
});
