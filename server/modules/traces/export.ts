import { SpanKind, SpanStatusCode, TraceFlags, type DiagLogger, type HrTime } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { BatchSpanProcessor, ReadableSpan } from '@opentelemetry/sdk-trace';
import { env } from '../../platform/env.js';
import { log } from '../../platform/log';
import { callCostText } from '../../platform/prices';
import { spanView, type Found } from './service';
import type { RecordedSpan } from './spans';

// OTLP export (docs/traces.md, "Export"): with OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, every span a process writes is handed, once its
// statement committed, to the OpenTelemetry JS SDK's BatchSpanProcessor and sent over OTLP/HTTP
// (`http/protobuf` by default, `http/json`) by its exporters, which read the standard OTEL_*
// variables themselves (headers, timeout, compression). The processor's queue is bounded
// (EXPORT_QUEUE spans): when the collector is slow or down, spans beyond it are dropped and
// counted in a log line, and a run never waits on it — handing a span over is a push to memory.
// Nothing set, nothing exported, and the SDK is not even loaded (`openTraceExport`, at boot).

export const EXPORT_QUEUE = 2_048;

/** The execution a span belongs to, as its attributes need it. */
export interface ExportRun {
  id: string;
  traceId: string;
  agentId: string;
  agentVersion: number | null;
  conversationId: string;
  environment: string;
  status: string;
}

let processor: BatchSpanProcessor | null = null;
let resource: Resource | undefined;
/** Agents' names by id, as runs of this process read them (the root span of a run finished here names its agent). */
const names = new Map<string, string>();

/** Loads the SDK and opens the exporter when an endpoint is set (boot, once per process). */
export async function openTraceExport(): Promise<void> {
  if (processor || (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT && !env.OTEL_EXPORTER_OTLP_ENDPOINT)) return;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const [{ diag, DiagLogLevel }, { BatchSpanProcessor }, { resourceFromAttributes }, exporters] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  diag.setLogger(throttled(), DiagLogLevel.WARN);
  resource = resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'agent-automation-service' });
  processor = new BatchSpanProcessor({ exporter: new exporters.OTLPTraceExporter(), maxQueueSize: EXPORT_QUEUE, maxExportBatchSize: 512, scheduledDelayMillis: 500, exportTimeoutMillis: 10_000 });
  log.info({ protocol }, 'run traces exported over OTLP');
}

/** The SDK's warnings (spans dropped, an export that failed) in the service's log, one a kind every 10 s at most. */
function throttled(): DiagLogger {
  const last = new Map<string, number>();
  const say = (message: string, ...args: unknown[]) => {
    const kind = message.replace(/\d+/g, 'N').slice(0, 80);
    const now = Date.now();
    if (now - (last.get(kind) ?? 0) < 10_000) return;
    last.set(kind, now);
    log.warn({ otel: args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ').slice(0, 300) }, `OTLP export: ${message}`);
  };
  const quiet = () => {};
  return { error: say, warn: say, info: quiet, debug: quiet, verbose: quiet };
}

const hr = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** Remembers an agent's name for the root spans of its runs (a run's part calls it). */
export function knowAgent(id: string, name: string): void {
  if (!processor) return;
  names.delete(id);
  names.set(id, name);
  if (names.size > 10_000) names.delete(names.keys().next().value!);
}

/** Hands spans of one run over to the exporter (after the statement writing them committed). Never throws, never waits. */
export function exportSpans(run: ExportRun, spans: RecordedSpan[]): void {
  const p = processor;
  if (!p || !resource || spans.length === 0) return;
  try {
    const found: Found = { id: run.id, trace_id: run.traceId, agent_id: run.agentId, agent_name: names.get(run.agentId) ?? null, agent_version: run.agentVersion, conversation_id: run.conversationId, environment: run.environment, status: run.status, spans: null, scores: null };
    for (const s of spans) {
      const usage = s.data.usage;
      const cost = s.name === 'model_call' || s.name === 'execution' ? callCostText(run.environment, s.data.model ?? '', usage?.inputTokens ?? 0, usage?.outputTokens ?? 0) : null;
      const view = spanView(found, { span_id: s.spanId, parent_id: s.parentId, name: s.name, started_at: s.startedAt, ended_at: s.endedAt, status: s.status, error: s.error ?? null, data: s.data, cost_usd: cost, total_usd: cost });
      const start = Date.parse(view.startedAt);
      const context = { traceId: run.traceId, spanId: view.id, traceFlags: TraceFlags.SAMPLED };
      const span: ReadableSpan = {
        name: view.name,
        kind: view.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        spanContext: () => context,
        ...(view.parentId ? { parentSpanContext: { traceId: run.traceId, spanId: view.parentId, traceFlags: TraceFlags.SAMPLED } } : {}),
        startTime: hr(start),
        endTime: hr(Date.parse(view.endedAt)),
        duration: hr(view.durationMs),
        status: view.error ? { code: SpanStatusCode.ERROR, message: `${view.error.code}: ${view.error.message}` } : { code: SpanStatusCode.OK },
        attributes: { ...view.attributes, ...(view.firstTokenMs != null ? { 'aas.first_token_ms': view.firstTokenMs } : {}) },
        links: (view.links ?? []).map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: TraceFlags.SAMPLED } })),
        events: [],
        ended: true,
        resource: resource!,
        instrumentationScope: { name: 'agent-automation-service' },
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
      };
      p.onEnd(span);
    }
  } catch (err) {
    log.warn({ err, executionId: run.id }, 'OTLP export: spans not handed over');
  }
}

/** Sends what is queued and closes the exporter (the process is stopping), within a few seconds. */
export async function closeTraceExport(): Promise<void> {
  const p = processor;
  processor = null;
  await p?.shutdown().catch(() => {});
}
