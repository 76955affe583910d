// The one error type services throw, and the catalogue of every code it can carry. Both faces
// report it the same way: REST as the envelope `{error:{type,code,message,param?,requestId}}`,
// tRPC via the error formatter. The HTTP status and `type` of an error, its tRPC code
// (api/trpc/init.ts) and the error responses of /v1/openapi.json (openapi.ts) all come from here.

export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'api_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/**
 * Which /v1 operations document a code in /v1/openapi.json:
 * - `every`: any operation (they all take an API key, a scope and input);
 * - `body`: operations that read a JSON body (POST, PATCH);
 * - `declared`: only operations that list the code in their meta `errors`;
 * - `routing`: answered before an operation is chosen (unknown path, wrong method): in the
 *   document's error table, on no operation;
 * - `dashboard`: the dashboard face only, never on /v1 (not in the document);
 * - `http`: answered by the server before anything else, on /v1 and the dashboard alike (the
 *   request could not be read as HTTP, or the server is still starting): in the document's error
 *   table, on no operation.
 */
export type ErrorScope = 'every' | 'body' | 'declared' | 'routing' | 'dashboard' | 'http';

interface ErrorEntry {
  code: string;
  status: number;
  type: ErrorType;
  on: ErrorScope;
  description: string;
}

export const ERROR_CATALOGUE = [
  // 400: bad input; `param` names the field.
  {
    code: 'missing_required_field',
    status: 400,
    type: 'invalid_request_error',
    on: 'every',
    description: 'A required field is missing; `param` names it (a dotted path for nested fields).',
  },
  {
    code: 'invalid_parameter',
    status: 400,
    type: 'invalid_request_error',
    on: 'every',
    description: 'A field or query parameter has the wrong type or an invalid value; `param` names it.',
  },
  {
    code: 'unknown_parameter',
    status: 400,
    type: 'invalid_request_error',
    on: 'every',
    description: 'A field or query parameter this endpoint does not take (fields such as `id` or `createdAt` can never be set).',
  },
  {
    code: 'invalid_json',
    status: 400,
    type: 'invalid_request_error',
    on: 'body',
    description: 'The request body is not valid JSON, not a JSON object, or nested too deeply.',
  },
  {
    code: 'invalid_cursor',
    status: 400,
    type: 'invalid_request_error',
    on: 'declared',
    description: '`after` or `before` is not an id of the listed resource.',
  },
  {
    code: 'parameter_conflict',
    status: 400,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'Parameters that exclude each other were given together (`after` and `before`).',
  },
  {
    code: 'email_taken',
    status: 400,
    type: 'invalid_request_error',
    on: 'dashboard',
    description: 'An account with this email address already exists (sign-up).',
  },
  // 401: who is calling is unknown.
  {
    code: 'missing_api_key',
    status: 401,
    type: 'authentication_error',
    on: 'every',
    description: 'No API key: send it as `Authorization: Bearer <key>` (never in the query string).',
  },
  {
    code: 'invalid_api_key',
    status: 401,
    type: 'authentication_error',
    on: 'every',
    description: 'The API key is malformed or unknown, or the Authorization header is not `Bearer <key>`.',
  },
  {
    code: 'api_key_revoked',
    status: 401,
    type: 'authentication_error',
    on: 'every',
    description: 'The API key has been revoked.',
  },
  {
    code: 'api_key_expired',
    status: 401,
    type: 'authentication_error',
    on: 'every',
    description: 'The API key has passed its `expiresAt`.',
  },
  {
    code: 'unauthenticated',
    status: 401,
    type: 'authentication_error',
    on: 'dashboard',
    description: 'The dashboard session has ended: sign in again.',
  },
  // 402: a budget refuses it.
  {
    code: 'budget_exceeded',
    status: 402,
    type: 'invalid_request_error',
    on: 'declared',
    description:
      'A `block` budget counting this run has reached its limit this period (the message names it and when it resets), or counts USD while the live model has no price.',
  },
  // 403: the caller may not do this.
  {
    code: 'insufficient_scope',
    status: 403,
    type: 'permission_error',
    on: 'every',
    description: 'The API key lacks the scope this request needs (the message names it), or tried to grant a scope it does not hold.',
  },
  {
    code: 'environment_mismatch',
    status: 403,
    type: 'permission_error',
    on: 'declared',
    description: "The request would act beyond the API key's own environment (`live` or `test`).",
  },
  {
    code: 'invitation_invalid',
    status: 404,
    type: 'invalid_request_error',
    on: 'dashboard',
    description: 'The invitation link is not valid for this account (unknown, expired, used, revoked, or for another address: the same answer for each).',
  },
  {
    code: 'insufficient_role',
    status: 403,
    type: 'permission_error',
    on: 'dashboard',
    description: 'Your role in this workspace does not allow this (the message says which roles do): docs/teams.md.',
  },
  {
    code: 'cross_site_request',
    status: 403,
    type: 'permission_error',
    on: 'dashboard',
    description: 'A dashboard change was sent by a page of another origin (its `Origin` or `Sec-Fetch-Site` says so).',
  },
  {
    code: 'signup_closed',
    status: 403,
    type: 'permission_error',
    on: 'dashboard',
    description: 'This server does not let a visitor create an account here (`SIGNUP_MODE`): only through an invitation link, or only through its operator; the message says which.',
  },
  // 404, 405: nothing here.
  {
    code: 'resource_not_found',
    status: 404,
    type: 'invalid_request_error',
    on: 'declared',
    description: "No such resource in this workspace and environment (another workspace's or environment's id included).",
  },
  {
    code: 'route_not_found',
    status: 404,
    type: 'invalid_request_error',
    on: 'routing',
    description: 'No endpoint has this path.',
  },
  {
    code: 'method_not_allowed',
    status: 405,
    type: 'invalid_request_error',
    on: 'routing',
    description: 'The path exists but not with this method; the `Allow` header lists the methods it takes.',
  },
  // 409: the resource is not in a state that allows this.
  {
    code: 'execution_not_cancellable',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'The execution has already finished (succeeded, failed or cancelled).',
  },
  {
    code: 'execution_not_final',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'The execution has not finished yet (queued, running or awaiting approval): replay it, or make a dataset item of it, once it has.',
  },
  {
    code: 'already_member',
    status: 409,
    type: 'invalid_request_error',
    on: 'dashboard',
    description: 'The invited address, or you, belong to the workspace already.',
  },
  {
    code: 'invitation_limit_reached',
    status: 409,
    type: 'invalid_request_error',
    on: 'dashboard',
    description: 'The workspace has the most pending invitations it may have (100); revoke some first.',
  },
  {
    code: 'last_owner',
    status: 409,
    type: 'invalid_request_error',
    on: 'dashboard',
    description: 'The change would leave the workspace without an owner: make another member an owner first.',
  },
  {
    code: 'conversation_busy',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'The conversation already has a queued, running or paused (`requires_action`) execution.',
  },
  {
    code: 'execution_not_awaiting_approval',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'The execution is not in `requires_action`: nothing of it awaits a decision (it resumed, finished or was cancelled).',
  },
  {
    code: 'tool_call_already_decided',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'A tool call of the decisions was approved or denied already (by another request, a person, or its expiry).',
  },
  {
    code: 'approval_expired',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'A tool call of the decisions passed its `expiresAt`: it is denied as `"expired"` (by this request if the service had not yet), and no decision can approve it now.',
  },
  {
    code: 'webhook_disabled',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'The webhook is disabled; enable it (`PATCH` with `enabled: true`) before sending to it.',
  },
  {
    code: 'webhook_limit_reached',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'This environment already has the most webhooks a workspace may have (20); delete one first.',
  },
  {
    code: 'schedule_limit_reached',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'This environment already has the most schedules a workspace may have (100); delete one first.',
  },
  {
    code: 'budget_limit_reached',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'This environment already has the most budgets a workspace may have (100); delete one first.',
  },
  {
    code: 'dataset_limit_reached',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'This environment already has the most datasets a workspace may have (100); delete one first.',
  },
  {
    code: 'dataset_full',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'The dataset already holds 10,000 items, the most a dataset may hold; delete some or make another dataset.',
  },
  {
    code: 'experiment_limit_reached',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'This environment already has 10 experiments queued or running, the most a workspace may have at once; wait for one to end or cancel one.',
  },
  {
    code: 'experiment_not_cancellable',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description: 'The experiment has already ended (succeeded, failed or cancelled).',
  },
  {
    code: 'idempotency_conflict',
    status: 409,
    type: 'invalid_request_error',
    on: 'declared',
    description:
      'This `Idempotency-Key` was used with another body or endpoint, or its first request is still in progress.',
  },
  // 413, 415: the body cannot be read.
  {
    code: 'request_too_large',
    status: 413,
    type: 'invalid_request_error',
    on: 'body',
    description: 'The request body is larger than 1 MiB.',
  },
  {
    code: 'unsupported_media_type',
    status: 415,
    type: 'invalid_request_error',
    on: 'body',
    description: 'The request body is not `application/json`.',
  },
  // 400, 408, 431: Node's HTTP parser refused the request (platform/http/client-error.ts).
  {
    code: 'malformed_request',
    status: 400,
    type: 'invalid_request_error',
    on: 'http',
    description:
      'The request is not valid HTTP/1.1 and was not read: typically a header holding a line break or control character (an API key pasted with a trailing newline).',
  },
  {
    code: 'request_timeout',
    status: 408,
    type: 'invalid_request_error',
    on: 'http',
    description: 'The request did not arrive in time: its headers within 5 s, the whole request within 30 s.',
  },
  {
    code: 'request_header_too_large',
    status: 431,
    type: 'invalid_request_error',
    on: 'http',
    description: 'The request headers are larger than 16 KiB in all.',
  },
  // 429, 503 (answered by the server while it starts: api/http/starting.ts), 500.
  {
    code: 'rate_limit_exceeded',
    status: 429,
    type: 'rate_limit_error',
    on: 'every',
    description: 'Too many requests: retry after the `Retry-After` header (seconds).',
  },
  {
    code: 'starting',
    status: 503,
    type: 'api_error',
    on: 'http',
    description:
      'The server is still starting: on /v1 and everywhere until its database is made and migrated (seconds), then on the dashboard alone while it is built and loaded (its first build takes a minute or two). `Retry-After` says when to try again.',
  },
  {
    code: 'internal_error',
    status: 500,
    type: 'api_error',
    on: 'every',
    description: 'Something unexpected went wrong on our side; quote the `requestId` when reporting it.',
  },
] as const satisfies readonly ErrorEntry[];

export type CatalogueEntry = (typeof ERROR_CATALOGUE)[number];
export type ErrorCode = CatalogueEntry['code'];

/**
 * Every code, in the catalogue's order: the one list of codes. The dashboard and the tests name
 * codes through `ErrorCode` (a code not in the catalogue does not compile) or check them here.
 */
export const ERROR_CODES = ERROR_CATALOGUE.map((e) => e.code) as readonly ErrorCode[];
export const isErrorCode = (value: unknown): value is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(value);
export type ErrorStatus = CatalogueEntry['status'];
/** The codes an operation documents only when its meta lists them (`errors: [...]`). */
export type DeclaredErrorCode = Extract<CatalogueEntry, { on: 'declared' }>['code'];

/** The catalogue entry of each code. */
export const ERRORS = Object.fromEntries(ERROR_CATALOGUE.map((e) => [e.code, e])) as Record<ErrorCode, CatalogueEntry>;

export interface ApiErrorOptions {
  /** The offending field (a dotted path for nested fields). */
  param?: string;
  /** Headers the REST face sends with this error (`Allow`, `Retry-After`…). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  readonly type: ErrorType;
  readonly param?: string;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.type = ERRORS[code].type;
    this.param = opts.param;
    this.headers = opts.headers;
  }

  toBody(requestId: string) {
    return {
      error: {
        type: this.type,
        code: this.code,
        message: this.message,
        ...(this.param !== undefined ? { param: this.param } : {}),
        requestId,
      },
    };
  }
}

export const notFound = (kind: string, id: string) =>
  new ApiError('resource_not_found', `No such ${kind}: '${id.length > 64 ? `${id.slice(0, 64)}…` : id}'`, { param: 'id' });

/**
 * How to get a key with a scope the default keys leave out. webhooks:manage: the README's first
 * webhook used to meet a bare 403 with a key made with the default scopes. (A key can only grant
 * scopes it holds, so the first such key comes from the dashboard or the admin CLI.)
 */
const SCOPE_HINTS: Record<string, string> = {
  'webhooks:manage':
    '. Default keys do not have it: create a key with webhooks:manage ticked in the dashboard (API keys), or with ' +
    '`npm run admin -- create-key --email <you> --env <live|test> --scopes agents:read,agents:write,agents:execute,webhooks:manage`',
};

export const insufficientScope = (scope: string, also?: string) =>
  new ApiError(
    'insufficient_scope',
    `This API key lacks the '${scope}' scope${also ? ` (or '${also}')` : ''} required for this request${SCOPE_HINTS[scope] ?? ''}`,
  );

export const internalError = () =>
  new ApiError('internal_error', 'An unexpected error occurred. Quote the request id when contacting support.');
