import type { components, operations } from './generated/openapi.js';

// The client's types, all derived from the generated ones (generated/openapi.ts): an operation's
// body, query and answer by its operationId, and the resources by their schema names.

export type Schemas = components['schemas'];
export type OperationId = keyof operations;

/** An operation's JSON body. */
export type Body<O extends OperationId> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
/** An operation's query parameters. */
export type QueryOf<O extends OperationId> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** An operation's JSON answer (its 200, 201 or 202). */
export type Answer<O extends OperationId> = operations[O]['responses'] extends infer R
  ? R extends { 200: infer A }
    ? JsonOf<A>
    : R extends { 201: infer A }
      ? JsonOf<A>
      : R extends { 202: infer A }
        ? JsonOf<A>
        : never
  : never;

export type Agent = Schemas['Agent'];
export type AgentVersion = Schemas['AgentVersion'];
export type CreatedAgent = Schemas['CreatedAgent'];
export type Execution = Schemas['Execution'];
export type ExecutionStatus = Execution['status'];
export type Trace = Schemas['Trace'];
export type Span = Schemas['Span'];
export type ExecutionEvent = Schemas['ExecutionEvent'];
export type ExecutionEventType = ExecutionEvent['type'];
export type Conversation = Schemas['Conversation'];
export type ConversationSummary = Schemas['ConversationSummary'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type Webhook = Schemas['Webhook'];
export type CreatedWebhook = Schemas['CreatedWebhook'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** An event as `/v1/events` lists it and a webhook receives it. */
export type Event = Schemas['Event'];
export type Schedule = Schemas['Schedule'];
export type Budget = Schemas['Budget'];
export type Dataset = Schemas['Dataset'];
export type DatasetItem = Schemas['DatasetItem'];
export type Experiment = Schemas['Experiment'];
export type ExperimentResult = Schemas['ExperimentResult'];
export type EvalRule = Schemas['EvalRule'];
export type EvalScorer = Schemas['EvalScorer'];
export type AuditEvent = Schemas['AuditEvent'];
export type ModelProvider = Schemas['ModelProvider'];
export type ApiErrorBody = Schemas['Error'];
