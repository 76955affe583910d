// @ts-check
// Environment, validated once at start-up (the custom server, the worker, the CLI and
// next.config.js all import this file, so a bad value fails fast with a clear message).
import { isIP } from 'node:net';
import { createEnv } from '@t3-oss/env-nextjs';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

/** An IP address as written by `isIP` (no `127.1` shorthands), with an optional prefix length. */
function isIpOrCidr(/** @type {string} */ entry) {
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

export const env = createEnv({
  server: {
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    // Loopback unless told otherwise: `npm start` on a laptop on café Wi-Fi, or on a server with a
    // public address, serves no one else until HOST (0.0.0.0) or a reverse proxy says so.
    HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./.data'),
    // Where the embedded database's migrated template is kept: a new DATA_DIR is a copy of it
    // (db/pglite-template.ts). Built once per installation and set of migrations.
    PGLITE_TEMPLATE_DIR: z.string().min(1).default('.next/cache/pglite-template'),
    DATABASE_URL: z.url().optional(),
    REDIS_URL: z.url().optional(),
    AUTH_SECRET: z.string().min(32).optional(),
    // Seals stored secrets (docs/security.md, "Secrets at rest"): comma-separated base64 keys of
    // 32 bytes, the first seals, all open. Generated into DATA_DIR when absent, except in
    // production with DATABASE_URL, where it is required (server/platform/secrets.ts).
    SECRETS_KEY: z
      .string()
      .regex(/^\s*[A-Za-z0-9+/_-]{43}=?\s*(,\s*[A-Za-z0-9+/_-]{43}=?\s*)*$/, 'comma-separated base64 keys of 32 bytes (`openssl rand -base64 32`)')
      .optional(),
    AUTH_GITHUB_ID: z.string().min(1).optional(),
    AUTH_GITHUB_SECRET: z.string().min(1).optional(),
    // The dashboard's public URL (next-auth's own setting, for its redirects): also an origin
    // the dashboard's changes may come from (server/platform/http/same-origin.ts).
    NEXTAUTH_URL: z.url().optional(),
    // Invitation mail (docs/teams.md): with SMTP_URL set (smtp:// or smtps://, credentials in the
    // URL), an invitation's link is mailed as well as shown once. MAIL_FROM: the sender.
    SMTP_URL: z
      .url()
      .refine((u) => /^smtps?:$/.test(new URL(u).protocol), 'an smtp:// or smtps:// URL')
      .optional(),
    MAIL_FROM: z.string().trim().min(3).max(200).default('Agent Automation <no-reply@localhost>'),
    // Who may create an account from the sign-up page (docs/security.md, "Sign-up"): `invite`, the
    // first account of an empty installation and then only holders of an invitation link; `open`,
    // anyone who reaches the server; `closed`, no one (the admin CLI creates accounts).
    SIGNUP_MODE: z.enum(['invite', 'open', 'closed']).default('invite'),
    RUN_WORKERS: bool.default(true),
    // Executions one worker process runs at once. A run mostly waits on the model and its tools
    // (seconds), so a process holds many; each costs memory (docs/concurrency.md).
    EXECUTION_CONCURRENCY: z.coerce.number().int().min(1).max(2000).default(200),
    // A worker claims queued runs only while its event loop was busy less than this fraction of
    // the last second (keeping 4 runs going whatever): requests keep the rest (docs/concurrency.md,
    // "Headroom"). 1 turns it off (the tests do: their servers share a busy machine).
    EXECUTION_HEADROOM: z.coerce.number().min(0.1).max(1).default(0.8),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(10),
    EVAL_JUDGE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
    // A worker renews the heartbeat of the runs it holds, and sweeps for runs whose worker
    // stopped, this often; a run without a heartbeat for EXECUTION_LOST_AFTER_SECONDS fails as
    // worker_lost (docs/executions.md). The tests shorten both; see the checks below.
    EXECUTION_HEARTBEAT_SECONDS: z.coerce.number().min(0.05).max(20).default(5),
    EXECUTION_LOST_AFTER_SECONDS: z.coerce.number().min(0.15).max(55).default(25),
    // An event stream whose client reads nothing of a full buffer for this long is dropped.
    STREAM_STALL_SECONDS: z.coerce.number().min(0.1).max(600).default(30),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // How many reverse proxies in front of us append to X-Forwarded-For (true = 1, false = 0).
    // Every peer is then taken for a proxy; TRUSTED_PROXIES names them instead (docs/security.md).
    TRUST_PROXY: z
      .string()
      .regex(/^(true|false|\d{1,2})$/, 'true, false or a number of trusted proxies')
      .default('false')
      .transform((v) => (v === 'true' ? 1 : v === 'false' ? 0 : Number(v))),
    // The reverse proxies in front of us, by address: `127.0.0.1,10.0.0.0/8,fd00::/8`. Only their
    // X-Forwarded-For is read, and their connections are not capped per address.
    TRUSTED_PROXIES: z
      .string()
      .default('')
      .transform((text, ctx) => {
        const entries = text.split(',').map((s) => s.trim()).filter(Boolean);
        for (const entry of entries) {
          if (!isIpOrCidr(entry)) ctx.addIssue({ code: 'custom', message: `'${entry}' is not an IP address or a CIDR range (10.0.0.0/8, fd00::/8)` });
        }
        return entries;
      }),
    // Connections one client address (an IPv6 /64) may hold open at once; 0: no cap.
    MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).default(256),
    RATE_LIMIT_ANON_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    RATE_LIMIT_SIGNUPS_PER_HOUR: z.coerce.number().int().min(1).default(10),
    OPENAI_API_KEY: z.string().min(1).optional(),
    ANTHROPIC_API_KEY: z.string().min(1).optional(),
    OPENAI_COMPATIBLE_BASE_URL: z.url().optional(),
    OPENAI_COMPATIBLE_API_KEY: z.string().min(1).optional(),
    TEST_MODE_REAL_MODELS: bool.default(false),
    // Unset: allowed in development (npm run dev) only; see server/platform/net/private-urls.ts.
    WEBHOOK_ALLOW_PRIVATE_URLS: bool.optional(),
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(/^\d+(,\d+)*$/, 'comma-separated seconds')
      .default('5,300,1800,7200,18000,36000,36000'),
    // The most one model call may answer when a `block` budget counts its run: reserved on the
    // budget before the call starts, and sent to the model as its maximum output (docs/budgets.md,
    // "Reservations"). Runs no `block` budget counts send no maximum.
    BUDGET_RESERVE_OUTPUT_TOKENS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
    // Estimated cost in usage analytics: USD per 1M input and output tokens of each priced model,
    // `{"openai/gpt-4o-mini": {"input": 0.15, "output": 0.6}}`. Tokens of a live model without
    // a price have an unknown (null) cost; the sandbox, test mode and runs without tokens cost 0.
    MODEL_PRICES: z
      .string()
      .default('{}')
      .transform((text, ctx) => {
        try {
          return JSON.parse(text);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
          return z.NEVER;
        }
      })
      .pipe(
        z.record(
          z.string().regex(/^[a-z][a-z0-9-]*\/\S{1,200}$/, 'keys are "<provider>/<model>"'),
          z.strictObject({ input: z.number().min(0).max(1e6), output: z.number().min(0).max(1e6) }),
        ),
      ),
    // `false`: this process records no API request usage and compacts no execution records
    // (what the benchmark compares against; usage analytics then miss what it served).
    USAGE_ANALYTICS: bool.default(true),
    // `off`: this process records no run traces (docs/traces.md; the benchmark compares the two).
    TRACES: z.enum(['on', 'off']).default('on'),
    ONLINE_SCORING: z.enum(['on', 'off']).default('on'),
    // OTLP export of run traces (docs/traces.md, "Export"): the OpenTelemetry SDK's standard
    // variables (its exporters read OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION themselves).
    OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
    OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
    OTEL_SERVICE_NAME: z.string().max(200).optional(),
    // Seconds between a worker process's compactions of usage records into rollups (when records wait).
    USAGE_COMPACT_SECONDS: z.coerce.number().min(0.1).max(3600).default(2),
    // Rows of settled usage buckets each process keeps in memory to answer again (0: none).
    USAGE_CACHE_ROWS: z.coerce.number().int().min(0).max(10_000_000).default(100_000),
    // An endpoint whose attempts have all failed for this long is disabled (5 days).
    WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce.number().int().min(1).default(432_000),
    // One delivery attempt gives up after this long (connect, answer and the first 1 KB of body).
    WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(60).default(15),
  },
  client: {},
  // Checks across variables, reported under the variable to change.
  createFinalSchema: (shape) =>
    z.object(shape).superRefine((e, ctx) => {
      const beat = e.EXECUTION_HEARTBEAT_SECONDS;
      const lost = e.EXECUTION_LOST_AFTER_SECONDS;
      // A busy process renews late now and then: a few missed beats are not a death.
      if (lost < 3 * beat) {
        ctx.addIssue({ code: 'custom', path: ['EXECUTION_LOST_AFTER_SECONDS'], message: 'at least 3 × EXECUTION_HEARTBEAT_SECONDS' });
      }
      // A run whose worker died fails within lost-after plus one sweep: within 60 s, as promised.
      if (lost + beat > 60) {
        ctx.addIssue({ code: 'custom', path: ['EXECUTION_LOST_AFTER_SECONDS'], message: 'plus EXECUTION_HEARTBEAT_SECONDS at most 60' });
      }
      // Two answers to "who is a proxy": every peer (a hop count) or the listed addresses.
      if (e.TRUST_PROXY > 0 && e.TRUSTED_PROXIES.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['TRUSTED_PROXIES'], message: 'set either TRUST_PROXY or TRUSTED_PROXIES, not both' });
      }
    }),
  experimental__runtimeEnv: {},
  // Empty strings in .env files mean "not set".
  emptyStringAsUndefined: true,
  // `next build` evaluates this too; the build needs no runtime configuration.
  skipValidation: process.env.SKIP_ENV_VALIDATION === '1',
  // One plain line per bad variable, then stop: no stack trace for a configuration mistake.
  onValidationError: (issues) => {
    for (const issue of issues) {
      const name = (issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)).join('.');
      console.error(`Invalid environment variable ${name}: ${issue.message}`);
    }
    process.exit(1);
  },
});

// Read once per process (Next may evaluate this module again: the values are the same). The
// tests' harness checks this mark to refuse starting a server after the environment was read
// with another test file's, or the developer's, settings (test/harness.ts, startServer).
/** @type {Record<symbol, unknown>} */ (globalThis)[Symbol.for('agent-service.env-read')] = true;
