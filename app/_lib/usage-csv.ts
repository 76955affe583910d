import { toCsv, type Column } from './csv';
import type { DashboardEnvironment } from './environment';
import type { ExecutionUsage, ExecutionUsageRow, RequestUsage, RequestUsageRow } from './types';
import { errorsOf, failureRate, type ExecutionGroup, type RangePreset, type RequestGroup, type UsageWindow } from './usage';

// The Usage page's CSV downloads: one tidy table per chart or table of the page, each its own
// RFC 4180 file — one header row, then one row per bucket, model, agent or key with as many
// fields as the header, so spreadsheets and `pandas.read_csv` read it as it is. Raw numbers
// (costs in USD, durations in ms), ISO 8601 bucket bounds, booleans as true/false; an unknown
// cost is an empty field (missing, never 0).

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

const ms = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(v));
const ratio = (v: number | null) => (v === null ? null : Number(v.toFixed(4)));

interface Bucket<Row> {
  start: string;
  end: string;
  /** The bucket's row (absent only if the answer had none: its fields are left empty). */
  row: Row | undefined;
}

const bucketsOf = <Row>(series: { data: { start: string; end: string; results: Row[] }[] }): Bucket<Row>[] =>
  series.data.map(({ start, end, results }) => ({ start, end, row: results[0] }));

/** A bucket table's columns: its bounds, then fields of its row. */
function bucketColumns<Row>(fields: readonly Column<Row>[]): Column<Bucket<Row>>[] {
  return [['bucket_start', (b) => b.start], ['bucket_end', (b) => b.end], ...fields.map(([h, value]): Column<Bucket<Row>> => [h, (b) => (b.row ? value(b.row) : null)])];
}

type Exec = ExecutionUsageRow;
type Req = RequestUsageRow;

const EXECUTIONS: Column<Exec>[] = [
  ['executions', (r) => r.executions],
  ['succeeded', (r) => r.succeeded],
  ['failed', (r) => r.failed],
  ['cancelled', (r) => r.cancelled],
];
const TOKENS: Column<Exec>[] = [
  ['input_tokens', (r) => r.inputTokens],
  ['output_tokens', (r) => r.outputTokens],
  ['total_tokens', (r) => r.totalTokens],
  ['tool_calls', (r) => r.toolCalls],
  ['cost_usd', (r) => r.costUsd],
];
const SPEND: Column<Exec>[] = [
  ['executions', (r) => r.executions],
  ['cost_usd', (r) => r.costUsd],
];
const DURATION: Column<Exec>[] = [
  ['executions', (r) => r.executions],
  ['p50_ms', (r) => ms(r.durationMs?.p50)],
  ['p95_ms', (r) => ms(r.durationMs?.p95)],
  ['p99_ms', (r) => ms(r.durationMs?.p99)],
];
const REQUESTS: Column<Req>[] = [
  ['requests', (r) => r.requests],
  ['succeeded', (r) => r.succeeded],
  ['client_errors', (r) => r.clientErrors],
  ['unauthorized_401', (r) => r.unauthorized],
  ['forbidden_403', (r) => r.forbidden],
  ['rate_limited_429', (r) => r.rateLimited],
  ['server_errors_5xx', (r) => r.serverErrors],
  ['p50_ms', (r) => ms(r.durationMs?.p50)],
  ['p95_ms', (r) => ms(r.durationMs?.p95)],
];
const MODELS: Column<ExecutionGroup>[] = [
  ['model', (m) => m.id],
  ['executions', (m) => m.executions],
  ['input_tokens', (m) => m.inputTokens],
  ['output_tokens', (m) => m.outputTokens],
  ['total_tokens', (m) => m.totalTokens],
  ['cost_usd', (m) => m.costUsd],
];
const AGENTS: Column<NamedAgent>[] = [
  ['agent_id', (a) => a.id],
  ['agent_name', (a) => a.name],
  ['deleted', (a) => a.deleted],
  ['executions', (a) => a.executions],
  ['succeeded', (a) => a.succeeded],
  ['failed', (a) => a.failed],
  ['cancelled', (a) => a.cancelled],
  ['failure_rate', (a) => ratio(failureRate(a))],
  ['total_tokens', (a) => a.totalTokens],
  ['cost_usd', (a) => a.costUsd],
  ['p95_ms', (a) => ms(a.p95)],
];
const KEYS: Column<NamedKey>[] = [
  ['key_id', (k) => k.id],
  ['key_name', (k) => k.name],
  ['revoked', (k) => k.revoked],
  ['requests', (k) => k.requests],
  ['errors', (k) => errorsOf(k)],
  ['rate_limited_429', (k) => k.rateLimited],
  ['unauthorized_401', (k) => k.unauthorized],
];

/** The page's downloads, each a card of the page: its file name's suffix and its table. */
export const USAGE_TABLES = {
  executions: { file: 'executions', csv: (s: UsageSnapshot) => toCsv(bucketColumns(EXECUTIONS), bucketsOf(s.executions)) },
  tokens: { file: 'tokens', csv: (s: UsageSnapshot) => toCsv(bucketColumns(TOKENS), bucketsOf(s.executions)) },
  spend: { file: 'cost-by-bucket', csv: (s: UsageSnapshot) => toCsv(bucketColumns(SPEND), bucketsOf(s.executions)) },
  cost: { file: 'cost-by-model', csv: (s: UsageSnapshot) => toCsv(MODELS, s.models) },
  duration: { file: 'duration', csv: (s: UsageSnapshot) => toCsv(bucketColumns(DURATION), bucketsOf(s.executions)) },
  requests: { file: 'api-requests', csv: (s: UsageSnapshot) => toCsv(bucketColumns(REQUESTS), bucketsOf(s.requests)) },
  agents: { file: 'top-agents', csv: (s: UsageSnapshot) => toCsv(AGENTS, s.agents) },
  keys: { file: 'top-keys', csv: (s: UsageSnapshot) => toCsv(KEYS, s.keys) },
} as const;

export type UsageTableId = keyof typeof USAGE_TABLES;

/** One table of the page as CSV. */
export function usageCsv(s: UsageSnapshot, table: UsageTableId): string {
  return USAGE_TABLES[table].csv(s);
}

/** A download's name, after the table and the last day it covers: usage-live-7d-2026-11-21-top-agents.csv. */
export function csvFileName(s: Pick<UsageSnapshot, 'environment' | 'range' | 'window'>, table: UsageTableId): string {
  const lastDay = new Date(Date.parse(s.window.end) - 1).toISOString().slice(0, 10);
  return `usage-${s.environment}-${s.range.id}-${lastDay}-${USAGE_TABLES[table].file}.csv`;
}
