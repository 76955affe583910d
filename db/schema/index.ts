export * from './accounts';
export { ENVIRONMENTS, type Environment } from './columns';
export * from './keys';
export * from './ratelimit';
export * from './sessions';
export * from './agents';
export * from './executions';
export * from './idempotency';
export * from './webhooks';
