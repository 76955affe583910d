import pino from 'pino';
import { env } from './env.js';
import { singleton } from './registry';

// JSON lines. Authorization headers, cookies and key material are redacted wherever they
// would appear; request logs carry the request id.
export const log = singleton('logger', () =>
  pino({
    level: env.LOG_LEVEL,
    base: { service: 'agent-service' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'headers.cookie',
        '*.key',
        '*.password',
        '*.secret',
      ],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  }),
);
