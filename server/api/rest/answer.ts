import type { ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { ApiError, internalError } from '../../platform/errors';
import { sendJson } from '../../platform/http/send';
import { log } from '../../platform/log';

// What a /v1 route answers, as a value: the REST handler writes it once (`respond`), and
// idempotency stores it before it is written. A JSON answer is its status and serialized body;
// a long answer (an event stream, a `wait`) writes itself, and keeps a short marker in its
// place that a replay turns back into the same kind of answer (docs/executions.md, "Idempotency").

export interface JsonAnswer {
  status: number;
  /** The body, serialized. */
  json: string;
  headers?: Record<string, string>;
}

export interface LongAnswer {
  status: number;
  /** What an Idempotency-Key record keeps for this answer (`{"$stream":id}`); none: not kept. */
  marker?: string;
  headers?: Record<string, string>;
  /** Writes the whole response (it owns it from here, and frees what it holds when done). */
  write(res: ServerResponse): Promise<void>;
}

export type Answer = JsonAnswer | LongAnswer;

export const json = (status: number, body: unknown, headers?: Record<string, string>): JsonAnswer => ({
  status,
  json: typeof body === 'string' ? body : JSON.stringify(body),
  headers,
});

/**
 * The public error of whatever a route or procedure threw: an ApiError as it is (a procedure's
 * comes wrapped in a TRPCError), anything else a logged 500 whose details stay in the log.
 */
export function toApiError(err: unknown, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof TRPCError && err.cause instanceof ApiError) return err.cause;
  log.error({ requestId, err: err instanceof TRPCError ? (err.cause ?? err) : err }, 'unhandled error in REST handler');
  return internalError();
}

/** The error envelope `{error:{type,code,message,param?,requestId}}` as an answer, with the error's headers. */
export const errorAnswer = (err: ApiError, requestId: string): JsonAnswer => json(err.status, err.toBody(requestId), err.headers);

/** Writes an answer: the only place a /v1 response is written (long answers write their own body). */
export async function respond(res: ServerResponse, answer: Answer): Promise<void> {
  if ('json' in answer) return sendJson(res, answer.status, answer.json, answer.headers);
  for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
  await answer.write(res);
}
