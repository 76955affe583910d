import { sql, type SQL } from 'drizzle-orm';
import type { SpanData, SpanName } from '../../../db/schema';
import { costOf, pricedFrom } from '../../platform/prices';

// A run's spans as the statements that write them take them (docs/traces.md): one parameter
// (JSON) however many spans there are, and each model call priced in the database by the rule
// usage analytics and the budgets price it with (platform/prices.ts), so the sums are exact.

/** The most of one content value a span keeps (docs/traces.md, "Content"), in UTF-8 bytes, its mark included. */
export const CONTENT_CAP_BYTES = 32 * 1024;

/** A value as a span's content: its JSON text (a string as it is), cut to CONTENT_CAP_BYTES and marked when longer. */
export function capped(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value ?? null) ?? 'null');
  // n UTF-16 code units are at most 3n bytes of UTF-8: short text needs no counting.
  if (text.length * 3 <= CONTENT_CAP_BYTES) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes <= CONTENT_CAP_BYTES) return text;
  const mark = (n: number) => `…[cut: ${n} more bytes]`;
  // The cut ends on a whole character (a code point split in two is dropped).
  const kept = Buffer.from(text).subarray(0, CONTENT_CAP_BYTES - Buffer.byteLength(mark(bytes))).toString('utf8').replace(/\uFFFD$/u, '');
  return kept + mark(bytes - Buffer.byteLength(kept));
}

/** A span as recorded in the run's process, before it is written. */
export interface RecordedSpan {
  spanId: string;
  parentId: string | null;
  name: SpanName;
  startedAt: string;
  endedAt: string;
  status: 'ok' | 'error';
  error?: { code: string; message: string } | null;
  data: SpanData;
}

/** The insert of `spans` of one execution, as part of a statement (db/rows.ts `writeAll`); a span written before is kept as it was. */
export function spansInsert(executionId: string, environment: string, spans: RecordedSpan[]): SQL {
  const rows = spans.map((s) => ({
    span_id: s.spanId,
    parent_id: s.parentId,
    name: s.name,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    status: s.status,
    error: s.error ?? null,
    data: s.data,
    model: s.name === 'model_call' ? (s.data.model ?? null) : null,
    input_tokens: s.data.usage?.inputTokens ?? 0,
    output_tokens: s.data.usage?.outputTokens ?? 0,
  }));
  const source = sql`(select s.*, ${environment}::text as environment from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as s(span_id text, parent_id text, name text, started_at timestamptz, ended_at timestamptz, status text, error jsonb, data jsonb, model text, input_tokens int, output_tokens int))`;
  // A run's model calls are all of one model: priced with its price (no price table to join).
  const models = new Set(spans.flatMap((s) => (s.name === 'model_call' ? [s.data.model ?? ''] : [])));
  const { from, cost } =
    models.size <= 1 ? { from: sql`${source} r`, cost: costOf(environment, [...models][0] ?? '', sql`r.input_tokens`, sql`r.output_tokens`) } : pricedFrom(source);
  return sql`insert into execution_spans (execution_id, span_id, parent_id, name, started_at, ended_at, status, error, data, cost_usd)
    select ${executionId}, r.span_id, r.parent_id, r.name, r.started_at, r.ended_at, r.status, r.error, r.data, case when r.name = 'model_call' then ${cost} end
    from ${from}
    on conflict (execution_id, span_id) do nothing`;
}
