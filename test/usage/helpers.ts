import assert from 'node:assert/strict';
import { expectStatus } from '../expect';
import type { TestServer } from '../harness';
import type { Execution } from '../executions/helpers';

// What the usage tests share: reading a series, polling it until it holds what a test expects,
// and the exact figures computed from the executions themselves.

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export interface ExecutionRow {
  agentId?: string;
  model?: string;
  status?: string;
  executions: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  toolCalls: number;
  costUsd: number | null;
  durationMs: Percentiles | null;
}

export interface RequestRow {
  keyId?: string;
  requests: number;
  succeeded: number;
  clientErrors: number;
  unauthorized: number;
  forbidden: number;
  rateLimited: number;
  serverErrors: number;
  durationMs: Percentiles | null;
}

export interface Answer<Row> {
  granularity: 'hour' | 'day';
  data: { start: string; end: string; results: Row[] }[];
  totals: Row;
  hasMore: boolean;
  nextCursor?: string;
}

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** The start of the UTC day `days` days ago, as ISO. */
export const dayStart = (days = 0) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - days * DAY_MS).toISOString();

export async function usage<Row>(api: TestServer, key: string, series: 'executions' | 'requests', query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return api.request<Answer<Row>>('GET', `/v1/analytics/${series}?${qs}`, { key });
}

/** Reads the series until `done(answer)` holds (at most `timeoutMs`: the contract says 10 s), every `intervalMs`. */
export async function usageWhen<Row>(
  api: TestServer,
  key: string,
  series: 'executions' | 'requests',
  query: Record<string, string | number>,
  done: (a: Answer<Row>) => boolean,
  timeoutMs = 10_000,
  intervalMs = 100,
): Promise<Answer<Row>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await usage<Row>(api, key, series, query);
    expectStatus(res, 200);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) assert.fail(`usage not as expected after ${timeoutMs} ms: ${res.text.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** An execution's duration as the analytics count it: completedAt − startedAt (null if it never started). */
export const durationOf = (e: Execution) => (e.startedAt ? new Date(e.completedAt!).getTime() - new Date(e.startedAt).getTime() : null);

/** The exact nearest-rank percentile of a list of values. */
export function exactPercentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

/** Within 5 % or 1 ms of the exact value, as the contract allows. */
export function assertClose(actual: number, exact: number, what: string): void {
  const tolerance = Math.max(1, exact * 0.05);
  assert.ok(Math.abs(actual - exact) <= tolerance, `${what}: ${actual} is not within 5 % or 1 ms of ${exact}`);
}

export function assertPercentiles(actual: Percentiles | null, durations: number[], what: string): void {
  assert.ok(actual, `${what}: durationMs is null`);
  assertClose(actual.p50, exactPercentile(durations, 0.5), `${what} p50`);
  assertClose(actual.p95, exactPercentile(durations, 0.95), `${what} p95`);
  assertClose(actual.p99, exactPercentile(durations, 0.99), `${what} p99`);
}
