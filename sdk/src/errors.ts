// Errors the client throws (docs/sdk.md): an answer in the service's error envelope becomes an
// `ApiError` — a subclass per status, as in Stripe's, OpenAI's and Anthropic's libraries — with
// the envelope's fields; no answer at all is an `ApiConnectionError` (or `ApiTimeoutError`).

export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'rate_limit_error' | 'api_error';

export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  /** The HTTP status (undefined: no answer). */
  readonly status: number | undefined;
  readonly type: ErrorType | undefined;
  /** What went wrong, for programs: `resource_not_found`, `rate_limit_exceeded`, … */
  readonly code: string | undefined;
  /** The offending parameter (a dotted path when nested). */
  readonly param: string | undefined;
  /** `req_…`: quote it when you report a problem. */
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;

  constructor(message: string, fields: { status?: number; type?: ErrorType; code?: string; param?: string; requestId?: string; headers?: Headers; cause?: unknown } = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.status = fields.status;
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.requestId = fields.requestId;
    this.headers = fields.headers;
  }
}

/** 400 (and 405, 413, 415): the request is wrong; fix it before retrying. */
export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
}
/** 401: no key, or a malformed, unknown, revoked or expired one. */
export class AuthenticationError extends ApiError {
  override readonly name = 'AuthenticationError';
}
/** 402: a budget refuses the run (`budget_exceeded`). */
export class BudgetExceededError extends ApiError {
  override readonly name = 'BudgetExceededError';
}
/** 403: the key lacks the scope, or acts beyond its environment. */
export class PermissionDeniedError extends ApiError {
  override readonly name = 'PermissionDeniedError';
}
/** 404: no such resource for this key (another workspace's or environment's included). */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
}
/** 409: the resource's state forbids it (`conversation_busy`, `execution_not_cancellable`, `idempotency_conflict`, …). */
export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
}
/** 429: over a rate limit; the client waits out `Retry-After` itself before it gives up. */
export class RateLimitError extends ApiError {
  override readonly name = 'RateLimitError';
}
/** 5xx: the service failed; retried with backoff before it reaches you. */
export class InternalServerError extends ApiError {
  override readonly name = 'InternalServerError';
}
/** No answer: the connection failed or was cut (retried first). */
export class ApiConnectionError extends ApiError {
  override readonly name: string = 'ApiConnectionError';
}
/** No answer within the client's `timeout` (retried first). */
export class ApiTimeoutError extends ApiConnectionError {
  override readonly name = 'ApiTimeoutError';
}

/** The subclass of each status that has its own; other 4xx are BadRequestError, 5xx InternalServerError. */
const BY_STATUS: Record<number, typeof ApiError> = {
  401: AuthenticationError,
  402: BudgetExceededError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
};

type Envelope = { error?: { type?: ErrorType; code?: string; message?: string; param?: string; requestId?: string } };

/** The error for an answer that is not a success: its envelope's fields, the subclass of its status. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): ApiError {
  const e = (body && typeof body === 'object' ? (body as Envelope).error : undefined) ?? {};
  const fields = { status, type: e.type, code: e.code, param: e.param, requestId: e.requestId ?? headers.get('x-request-id') ?? undefined, headers };
  const message = e.message ?? `HTTP ${status}`;
  const Class = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : status >= 400 ? BadRequestError : ApiError);
  return new Class(message, fields);
}
