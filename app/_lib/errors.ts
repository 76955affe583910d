import { TRPCClientError } from '@trpc/client';
import type { ErrorCode, ErrorType } from '@/server/platform/errors';
import type { AppRouter } from '@/server/api/trpc/router';

// What the UI shows for a failed call: the server's own message (it is written for humans),
// or a plain sentence when the server could not be reached.

/** `error.code` is one of the server's catalogue (server/platform/errors.ts): compare it with `ErrorCode`s only. */
export interface ApiErrorInfo {
  type: ErrorType;
  code: ErrorCode;
  param: string | null;
}

function isClientError(err: unknown): err is TRPCClientError<AppRouter> {
  return err instanceof TRPCClientError;
}

export function apiErrorOf(err: unknown): ApiErrorInfo | null {
  return isClientError(err) ? (err.data?.apiError ?? null) : null;
}

/** Whether the call failed with this code. */
export const hasErrorCode = (err: unknown, code: ErrorCode): boolean => apiErrorOf(err)?.code === code;

export function errorMessage(err: unknown): string {
  if (isClientError(err)) {
    if (!err.data) return 'Could not reach the server. Check your connection and try again.';
    return err.message || 'Something went wrong. Please try again.';
  }
  return 'Something went wrong. Please try again.';
}

export function isClientFailure(err: unknown): boolean {
  const status = isClientError(err) ? err.data?.httpStatus : undefined;
  return status !== undefined && status >= 400 && status < 500;
}
