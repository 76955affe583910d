import { z } from 'zod';
import { ENVIRONMENTS } from '../../../db/schema/values';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';
import { AUDIT_ACTIONS, AUDIT_RETENTION_DAYS } from './actions';

// Request and response shapes of /v1/audit-events (docs/api.md, "Audit events"; docs/audit.md).

export const EXAMPLE_AUDIT_ID = 'aud_01JD8X41B2C3D4E5F6G7H8J9KA';

const actorSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('user'), id: z.string(), email: z.string().nullable().meta({ description: 'The user’s email when the change was made.' }) }),
    z.object({ type: z.literal('key'), id: z.string(), prefix: z.string().nullable().meta({ description: 'The key’s prefix (never its secret).' }) }),
    z.object({ type: z.literal('system') }),
  ])
  .meta({ id: 'AuditActor', description: 'Who made the change: a signed-in user (the dashboard, or the admin CLI acting as one), an API key, or the service itself.' });

export const auditEventSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier (`aud_…`), ordered by time.', example: EXAMPLE_AUDIT_ID }),
    action: z.enum(AUDIT_ACTIONS).meta({ description: 'What was done (`noun.verb`).', example: 'key.created' }),
    actor: actorSchema,
    target: z.object({ type: z.string().meta({ example: 'key' }), id: z.string().nullable().meta({ example: 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }) }).meta({ description: 'What was changed.' }),
    environment: z.enum(ENVIRONMENTS).nullable().meta({ description: 'The environment of the target; null for the workspace and account.', example: 'live' }),
    ip: z.string().nullable().meta({ description: 'The client’s address (behind a trusted proxy, the one it reported).', example: '203.0.113.7' }),
    userAgent: z.string().nullable().meta({ example: 'curl/8.5.0' }),
    requestId: z.string().nullable().meta({ description: 'The `X-Request-Id` of the request that made the change.', example: 'req_01JD8X41B2C3D4E5F6G7H8J9KB' }),
    changes: z
      .record(z.string(), z.tuple([z.unknown(), z.unknown()]))
      .nullable()
      .meta({ description: '`{field: [before, after]}` of the fields that changed (a creation: before null). Never a secret: a rotated one shows as `"rotated"`.', example: { name: [null, 'CI deploys'] } }),
    createdAt: z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' }),
  })
  .meta({ id: 'AuditEvent' });

export const auditEventListSchema = pageEnvelopeSchema(auditEventSchema).meta({ id: 'AuditEventList' });

const instant = (param: 'start' | 'end') =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()])
    .meta({ description: param === 'start' ? 'Only records made at or after this instant (RFC 3339, or a date: its midnight UTC).' : 'Only records made before this instant (RFC 3339, or a date: its midnight UTC).', example: param === 'start' ? '2026-11-01' : '2026-11-27T00:00:00Z' })
    .optional();

export const listAuditEventsInput = z.strictObject({
  ...pageQuerySchema,
  action: z.enum(AUDIT_ACTIONS).meta({ description: `Only this action. Records are kept ${AUDIT_RETENTION_DAYS} days.`, example: 'key.created' }).optional(),
  actorId: z.string().max(100).meta({ description: 'Only changes made by this user (`usr_…`) or key (`key_…`).', example: 'usr_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }).optional(),
  targetId: z.string().max(100).meta({ description: 'Only changes of this resource.', example: 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }).optional(),
  start: instant('start'),
  end: instant('end'),
});

export type ListAuditEventsInput = z.infer<typeof listAuditEventsInput>;
export type AuditEventView = z.infer<typeof auditEventSchema>;
