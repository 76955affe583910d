import pino from 'pino';
import { env } from './env.js';

// JSON lines. Authorization headers, cookies and key material are redacted wherever they
// would appear; request logs carry the request id.

// Database errors carry the values bound to the failed query, and often the request's input
// itself: drizzle in `params` and in its message, postgres.js in `parameters`, and PostgreSQL
// (postgres.js and PGlite alike) in `where` (CONTEXT: "JSON data, line 1: {…input…", a bound
// parameter's value), `detail` ("Key (email)=(…) already exists", "Failing row contains (…)"),
// `hint` and `internal_query`; a data exception (SQLSTATE class 22) quotes the value in its
// message too ('invalid input syntax for type integer: "…"'). A logged error keeps the SQL text
// (its string literals masked), the SQLSTATE, the routine and the database's message, never the
// values (docs/security.md, "Logs").
const BOUND_VALUES = new Set(['params', 'parameters', 'args', 'values', 'where', 'detail', 'hint', 'internal_query', 'internalQuery']);

type Serialized = Record<string, unknown>;

const DRIZZLE_PARAMS = /\nparams: [\s\S]*?(?=\n {4}at |$)/;
/** From the first to the last double quote: PostgreSQL does not escape quotes inside a quoted value. */
const QUOTED_VALUE = /"[^\n]*"/;
const SQL_STRING = /'(?:[^']|'')*'/g;

export function scrubError(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => scrubError(v, depth + 1));
  const error = value as Serialized;
  const message = typeof error.message === 'string' ? error.message : null;
  // A data exception's message quotes the value it could not take (in the stack's first line too).
  const dataException = typeof error.code === 'string' && /^22[0-9A-Z]{3}$/.test(error.code);
  const scrubbed = message === null ? null : dataException ? message.replace(QUOTED_VALUE, '"…"') : message.replace(DRIZZLE_PARAMS, '');
  const out: Serialized = {};
  for (const [k, v] of Object.entries(error)) {
    if (BOUND_VALUES.has(k)) continue;
    if (k === 'message' && scrubbed !== null) out[k] = scrubbed;
    else if (k === 'stack' && typeof v === 'string') {
      out[k] = (message && scrubbed !== null ? v.split(message).join(scrubbed) : v).replace(DRIZZLE_PARAMS, '');
    } else if (k === 'query' && typeof v === 'string') out[k] = v.replace(SQL_STRING, "'…'");
    else out[k] = scrubError(v, depth + 1);
  }
  return out;
}

const errSerializer = (err: unknown) => scrubError(pino.stdSerializers.errWithCause(err as Error));

// One logger per process: Next evaluates our modules several times in one process
// (docs/platform-notes.md), so it lives on globalThis, which exists once.
const LOGGER = Symbol.for('agent-service.logger');

function processLogger(create: () => pino.Logger): pino.Logger {
  const g = globalThis as unknown as Record<symbol, pino.Logger | undefined>;
  return (g[LOGGER] ??= create());
}

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
