import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/trpc/router';

type Outputs = inferRouterOutputs<AppRouter>;
type Inputs = inferRouterInputs<AppRouter>;

export type KeyItem = Outputs['keys']['list']['data'][number];
export type CreatedKey = Outputs['keys']['create'];
export type Account = Outputs['account']['me'];
export type ScopeInfo = Account['scopes'][number];

/** A keyed GET without parameters that a new key can try, and the scope it needs. */
export interface StarterCall {
  path: string;
  scope: string;
}

export type AgentItem = Outputs['agents']['list']['data'][number];
export type Agent = Outputs['agents']['get'];
export type CreatedAgent = Outputs['agents']['create'];
export type RotatedAgent = Outputs['agents']['rotateToolSecret'];
export type AgentTool = Agent['tools'][number];
export type AgentVersion = Outputs['agents']['version'];
export type AgentVersionConfig = AgentVersion['config'];
export type Execution = Outputs['executions']['get'];
export type ExecutionStatus = Execution['status'];
export type ExecutionStep = Execution['steps'][number];
export type Trace = Outputs['executions']['trace'];
export type Span = Trace['spans'][number];
export type Conversation = Outputs['conversations']['get'];
export type Schedule = Outputs['schedules']['get'];
export type SchedulePreview = Outputs['schedules']['preview'];
export type ModelProvider = Outputs['models']['providers']['providers'][number];

export type Webhook = Outputs['webhooks']['get'];
export type CreatedWebhook = Outputs['webhooks']['create'];
export type RotatedWebhook = Outputs['webhooks']['rotateSecret'];
export type Delivery = Outputs['webhooks']['resend'];
export type DeliveryStatus = Delivery['status'];
export type DeliveryAttempt = Delivery['attempts'][number];
export type WebhookEvent = Outputs['events']['get'];
export type WebhookEventType = WebhookEvent['type'];

export type ExecutionUsage = Outputs['analytics']['executions'];
export type ExecutionUsageRow = ExecutionUsage['totals'];
export type RequestUsage = Outputs['analytics']['requests'];
export type RequestUsageRow = RequestUsage['totals'];

export type Budget = Outputs['budgets']['get'];
export type BudgetPeriod = Budget['period'];
export type BudgetTargetType = Budget['target']['type'];

export type AuditEvent = Outputs['audit']['list']['data'][number];
export type AuditAction = AuditEvent['action'];
/** The Audit log's filters: those of `GET /v1/audit-events`. */
export type AuditFilters = Omit<Inputs['audit']['list'], 'limit' | 'after' | 'before'>;

export type Dataset = Outputs['datasets']['get'];
export type DatasetItem = Outputs['datasets']['item'];

export type Experiment = Outputs['experiments']['get'];
export type ExperimentStatus = Experiment['status'];
export type ExperimentResult = Outputs['experiments']['results']['data'][number];
export type EvalRule = Outputs['evalRules']['list']['data'][number];
/** A scorer as the API is sent it (an experiment's, a rule's). */
export type ScorerInput = Inputs['experiments']['create']['scorers'][number];
/** What scorers said of an execution's answer, by scorer name (null until scored). */
export type ExecutionScores = Execution['scores'];
