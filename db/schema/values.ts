// The values of the schema's enumerated columns, with no table attached: what the API schemas
// (and through them the dashboard's forms and pages, in the browser) import without drizzle.

export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const EXECUTION_STATUSES = ['queued', 'running', 'requires_action', 'succeeded', 'failed', 'cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** A member's role in a workspace (docs/teams.md). */
export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const MESSAGE_ROLES = ['user', 'assistant', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DISABLED_REASONS = ['manual', 'endpoint_gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** What a schedule's occurrence does while its previous run is still active (docs/schedules.md). */
export const SCHEDULE_OVERLAPS = ['skip', 'enqueue'] as const;
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAPS)[number];

/** An HTTP tool's approval policy (docs/approvals.md): `always`, a person decides before each call. */
export const TOOL_APPROVALS = ['never', 'always'] as const;
export type ToolApproval = (typeof TOOL_APPROVALS)[number];

/** What a budget caps (docs/budgets.md): the whole workspace, one agent, or one API key. */
export const BUDGET_TARGETS = ['workspace', 'agent', 'key'] as const;
export type BudgetTarget = (typeof BUDGET_TARGETS)[number];

/** A budget's period: it starts at local midnight in the budget's zone (weeks on Monday, months on the 1st); `total` never resets. */
export const BUDGET_PERIODS = ['day', 'week', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** What a budget does once spent: `block` refuses and stops runs, `notify` only alerts. */
export const BUDGET_ACTIONS = ['block', 'notify'] as const;
export type BudgetAction = (typeof BUDGET_ACTIONS)[number];

/** An experiment's status (docs/evals.md): it is a job, created `queued`. */
export const EXPERIMENT_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/** One item × trial of an experiment: waiting, its execution started, its judges running, scored, or never run (the experiment ended first). */
export const EXPERIMENT_RUN_STATES = ['pending', 'running', 'judging', 'scored', 'skipped'] as const;
export type ExperimentRunState = (typeof EXPERIMENT_RUN_STATES)[number];
