import pino from 'pino';
import { env } from './env.js';
import { processLogger } from './runtime';

// JSON lines. Authorization headers, cookies and key material are redacted wherever they
// would appear; request logs carry the request id.

// Database errors carry the values bound to the failed query (a key's SHA-256, an argon2 hash,
// an email): drizzle in `params` and in its message, postgres.js in `parameters`. A logged error
// keeps the SQL text and the database's own message, never the values.
const BOUND_VALUES = new Set(['params', 'parameters', 'args', 'values']);

type Serialized = Record<string, unknown>;

export function scrubError(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => scrubError(v, depth + 1));
  const out: Serialized = {};
  for (const [k, v] of Object.entries(value as Serialized)) {
    if (BOUND_VALUES.has(k)) continue;
    if ((k === 'message' || k === 'stack') && typeof v === 'string') out[k] = v.replace(/\nparams: [\s\S]*?(?=\n {4}at |$)/, '');
    else out[k] = scrubError(v, depth + 1);
  }
  return out;
}

const errSerializer = (err: unknown) => scrubError(pino.stdSerializers.errWithCause(err as Error));

export const log = processLogger(() =>
  pino({
    level: env.LOG_LEVEL,
    base: { service: 'agent-service' },
    serializers: { err: errSerializer, error: errSerializer },
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
