// The one error type services throw. Both faces report it the same way: REST as the
// envelope `{error:{type,code,message,param?,requestId}}`, tRPC via the error formatter.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'api_error';

export type ErrorCode =
  | 'missing_required_field'
  | 'invalid_parameter'
  | 'unknown_parameter'
  | 'invalid_json'
  | 'invalid_cursor'
  | 'parameter_conflict'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'api_key_revoked'
  | 'api_key_expired'
  | 'insufficient_scope'
  | 'environment_mismatch'
  | 'resource_not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'request_too_large'
  | 'unsupported_media_type'
  | 'rate_limit_exceeded'
  | 'unauthenticated'
  | 'email_taken'
  | 'internal_error';

const TYPE_BY_STATUS: Record<number, ErrorType> = {
  401: 'authentication_error',
  403: 'permission_error',
  429: 'rate_limit_error',
  500: 'api_error',
};

export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: ErrorCode;
  readonly param?: string;
  readonly headers?: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    opts: { param?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.type = TYPE_BY_STATUS[status] ?? 'invalid_request_error';
    this.code = code;
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
  new ApiError(404, 'resource_not_found', `No such ${kind}: '${id.length > 64 ? `${id.slice(0, 64)}…` : id}'`, {
    param: 'id',
  });

export const insufficientScope = (scope: string) =>
  new ApiError(403, 'insufficient_scope', `This API key lacks the '${scope}' scope required for this request`);

export const internalError = () =>
  new ApiError(500, 'internal_error', 'An unexpected error occurred. Quote the request id when contacting support.');
