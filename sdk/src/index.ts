import { Transport, type ClientOptions, type RequestOptions } from './core.js';
import { Agents } from './resources/agents.js';
import { Analytics, AuditEvents, Budgets, Events, Keys, Models, Schedules, Webhooks } from './resources/admin.js';
import { Conversations, Executions } from './resources/executions.js';
import { Datasets, EvalRules, Experiments } from './resources/evals.js';

// agent-automation-sdk: the typed client of the Agent Automation Service (docs/sdk.md).
//
//   import { Client } from 'agent-automation-sdk';
//   const client = new Client({ apiKey: process.env.AGENTS_API_KEY!, baseUrl: 'http://localhost:3000' });
//   const agent = await client.agents.create({ name: 'Support', model: 'sandbox/echo', instructions: 'Be brief.' });   // or 'openai/gpt-4o-mini'…
//   const run = await client.agents.execute(agent.id, { input: 'Hello', wait: true });
//   for await (const event of client.agents.execute(agent.id, { input: 'Hi', stream: true })) …

export class Client {
  readonly agents: Agents;
  readonly executions: Executions;
  readonly conversations: Conversations;
  readonly keys: Keys;
  readonly webhooks: Webhooks;
  readonly events: Events;
  readonly schedules: Schedules;
  readonly budgets: Budgets;
  readonly datasets: Datasets;
  readonly experiments: Experiments;
  readonly evalRules: EvalRules;
  readonly auditEvents: AuditEvents;
  readonly analytics: Analytics;
  readonly models: Models;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.agents = new Agents(this.transport);
    this.executions = new Executions(this.transport);
    this.conversations = new Conversations(this.transport);
    this.keys = new Keys(this.transport);
    this.webhooks = new Webhooks(this.transport);
    this.events = new Events(this.transport);
    this.schedules = new Schedules(this.transport);
    this.budgets = new Budgets(this.transport);
    this.datasets = new Datasets(this.transport);
    this.experiments = new Experiments(this.transport);
    this.evalRules = new EvalRules(this.transport);
    this.auditEvents = new AuditEvents(this.transport);
    this.analytics = new Analytics(this.transport);
    this.models = new Models(this.transport);
  }

  /** The service's OpenAPI 3.1 document (`GET /v1/openapi.json`). */
  openapi(options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.transport.json({ method: 'GET', path: '/openapi.json', options });
  }
}

export { OPERATIONS } from './operations.js';

export type { ClientOptions, RequestOptions } from './core.js';
export {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  type ErrorType,
} from './errors.js';
export { Page, PagedList } from './pagination.js';
export { ExecutionStream } from './stream.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
