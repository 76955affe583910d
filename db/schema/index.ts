export * from './accounts';
export * from './keys';
export * from './ratelimit';
export * from './sessions';
