import type { ServerResponse } from 'node:http';
import type { ApiError } from '../errors';

// The one way a JSON answer leaves the custom server (REST routes, health checks, refusals).

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** The error envelope `{error:{type,code,message,param?,requestId}}` with the error's own headers. */
export function sendError(res: ServerResponse, requestId: string, err: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, err.status, err.toBody(requestId), { ...headers, ...err.headers });
}
