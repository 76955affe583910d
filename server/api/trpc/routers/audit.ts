import { auditEventListSchema, listAuditEventsInput } from '../../../modules/audit/schemas';
import { listAuditEvents } from '../../../modules/audit/service';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { apiProcedure, router } from '../init';

// /v1/audit-events (docs/api.md, "Audit events"; docs/audit.md): who changed what in the
// workspace. Read-only: no route edits or deletes a record.

export const auditRouter = router({
  list: apiProcedure
    .meta({
      scope: 'audit:read',
      errors: PAGE_ERRORS,
      openapi: {
        method: 'GET',
        path: '/v1/audit-events',
        tags: ['Audit events'],
        summary: 'List audit events',
        description:
          'Scope `audit:read` (not a default scope). Every change made in the workspace through the dashboard, the API or the admin CLI, and every sign-in, ' +
          'newest first: this environment’s, and the workspace’s own (members, account, sign-ins: `environment` null). Filters: `action`, `actorId`, `targetId`, `start`, `end`. Kept 365 days.',
        successDescription: 'Audit events, newest first',
      },
    })
    .input(listAuditEventsInput)
    .output(auditEventListSchema)
    .query(({ ctx, input }) => listAuditEvents(ctx.db, ctx.actor, input)),
});
