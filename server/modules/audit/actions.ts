// The actions the audit log records (docs/audit.md): `noun.verb`, past tense. A list filter takes
// one of these; anything else is a 400, not an empty page.
export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'agent.tool_secret_rotated',
  'agent.label_moved',
  'agent.label_removed',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.test_sent',
  'webhook_delivery.resent',
  'schedule.created',
  'schedule.updated',
  'schedule.deleted',
  'schedule.run_now',
  'budget.created',
  'budget.updated',
  'budget.deleted',
  'approval.decided',
  'execution.cancelled',
  'conversation.deleted',
  'user.created',
  'user.signed_in',
  'user.sign_in_failed',
  'user.password_changed',
  'user.signed_out_everywhere',
  'workspace.plan_changed',
  'member.role_changed',
  'member.removed',
  'member.left',
  'member.joined',
  'invitation.created',
  'invitation.revoked',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How long records are kept (maintenance deletes older ones). */
export const AUDIT_RETENTION_DAYS = 365;
