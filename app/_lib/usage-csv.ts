import type { DashboardEnvironment } from './environment';
import type { ExecutionUsage, RequestUsage } from './types';
import { errorsOf, failureRate, type ExecutionGroup, type RangePreset, type RequestGroup, type UsageWindow } from './usage';

// The Usage page's "Export CSV": what the page shows, as one RFC 4180 file of sections (a title
// line, a header line, the rows; a blank line between sections) — the summary, every bucket of
// both series, cost by model, the top agents and the top keys. Raw numbers (costs in USD,
// durations in ms); an unknown cost is written "unknown", never 0.

export interface NamedAgent extends ExecutionGroup {
  /** Null when the agent is not in the agents list. */
  name: string | null;
  /** Not in a complete agents list: it was deleted. */
  deleted: boolean;
}

export interface NamedKey extends RequestGroup {
  name: string | null;
  /** Not in a complete keys list: it was revoked. */
  revoked: boolean;
}

export interface UsageSnapshot {
  environment: DashboardEnvironment;
  range: RangePreset;
  window: UsageWindow;
  executions: ExecutionUsage;
  requests: RequestUsage;
  models: ExecutionGroup[];
  agents: NamedAgent[];
  keys: NamedKey[];
}

type Cell = string | number | null;

/** One CSV field: quoted when needed; text that a spreadsheet would run as a formula is defused. */
export function csvField(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const line = (cells: Cell[]) => cells.map(csvField).join(',');
const cost = (v: number | null) => (v === null ? 'unknown' : v);
const ms = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(v));
const ratio = (v: number | null) => (v === null ? null : Number(v.toFixed(4)));

function section(title: string, header: string[], rows: Cell[][]): string[] {
  return [line([title]), line(header), ...rows.map(line)];
}

export function usageCsv(s: UsageSnapshot): string {
  const t = s.executions.totals;
  const r = s.requests.totals;
  const sections: string[][] = [
    section('Usage', ['environment', 'range', 'start', 'end', 'granularity'], [[s.environment, s.range.title, s.window.start, s.window.end, s.window.granularity]]),
    section(
      'Summary',
      ['executions', 'failure_rate', 'total_tokens', 'cost_usd', 'p95_ms', 'requests'],
      [[t.executions, ratio(failureRate(t)), t.totalTokens, cost(t.costUsd), ms(t.durationMs?.p95), r.requests]],
    ),
    section(
      'Executions by bucket',
      ['bucket_start', 'bucket_end', 'executions', 'succeeded', 'failed', 'cancelled', 'input_tokens', 'output_tokens', 'total_tokens', 'tool_calls', 'cost_usd', 'p50_ms', 'p95_ms'],
      s.executions.data.map(({ start, end, results: [row] }) =>
        row
          ? [start, end, row.executions, row.succeeded, row.failed, row.cancelled, row.inputTokens, row.outputTokens, row.totalTokens, row.toolCalls, cost(row.costUsd), ms(row.durationMs?.p50), ms(row.durationMs?.p95)]
          : [start, end],
      ),
    ),
    section(
      'API requests by bucket',
      ['bucket_start', 'bucket_end', 'requests', 'succeeded', 'client_errors', 'unauthorized_401', 'forbidden_403', 'rate_limited_429', 'server_errors_5xx', 'p50_ms', 'p95_ms'],
      s.requests.data.map(({ start, end, results: [row] }) =>
        row
          ? [start, end, row.requests, row.succeeded, row.clientErrors, row.unauthorized, row.forbidden, row.rateLimited, row.serverErrors, ms(row.durationMs?.p50), ms(row.durationMs?.p95)]
          : [start, end],
      ),
    ),
    section(
      'Estimated cost by model',
      ['model', 'executions', 'input_tokens', 'output_tokens', 'cost_usd'],
      s.models.map((m) => [m.id, m.executions, m.inputTokens, m.outputTokens, cost(m.costUsd)]),
    ),
    section(
      'Top agents',
      ['agent_id', 'agent_name', 'deleted', 'executions', 'failed', 'failure_rate', 'total_tokens', 'cost_usd', 'p95_ms'],
      s.agents.map((a) => [a.id, a.name, String(a.deleted), a.executions, a.failed, ratio(failureRate(a)), a.totalTokens, cost(a.costUsd), ms(a.p95)]),
    ),
    section(
      'Top keys',
      ['key_id', 'key_name', 'revoked', 'requests', 'errors', 'rate_limited_429', 'unauthorized_401'],
      s.keys.map((k) => [k.id, k.name, String(k.revoked), k.requests, errorsOf(k), k.rateLimited, k.unauthorized]),
    ),
  ];
  return `${sections.map((lines) => lines.join('\r\n')).join('\r\n\r\n')}\r\n`;
}

/** The file's name, after the last day it covers: usage-live-7d-2026-11-21.csv. */
export function csvFileName(s: Pick<UsageSnapshot, 'environment' | 'range' | 'window'>): string {
  const lastDay = new Date(Date.parse(s.window.end) - 1).toISOString().slice(0, 10);
  return `usage-${s.environment}-${s.range.id}-${lastDay}.csv`;
}
