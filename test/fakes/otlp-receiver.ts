import http from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

// A collector for the tests of OTLP export (docs/traces.md, "Export"): a real local HTTP server
// taking POST /v1/traces as OTLP/HTTP sends it, protobuf (decoded with protobufjs against the
// messages of opentelemetry-proto's trace service, field numbers as published) or JSON. `hang`
// makes it take requests and never answer, as a collector that is down behind a proxy does.

const root = protobuf.Root.fromJSON({
  nested: {
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
        kvlistValue: { type: 'KeyValueList', id: 6 },
        bytesValue: { type: 'bytes', id: 7 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 }, droppedAttributesCount: { type: 'uint32', id: 2 } } },
    InstrumentationScope: { fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        traceState: { type: 'string', id: 3 },
        parentSpanId: { type: 'bytes', id: 4 },
        flags: { type: 'fixed32', id: 16 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        endTimeUnixNano: { type: 'fixed64', id: 8 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        links: { rule: 'repeated', type: 'Link', id: 13 },
        status: { type: 'Status', id: 15 },
      },
    },
    Link: { fields: { traceId: { type: 'bytes', id: 1 }, spanId: { type: 'bytes', id: 2 }, traceState: { type: 'string', id: 3 }, attributes: { rule: 'repeated', type: 'KeyValue', id: 4 } } },
    ScopeSpans: { fields: { scope: { type: 'InstrumentationScope', id: 1 }, spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    ResourceSpans: { fields: { resource: { type: 'Resource', id: 1 }, scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 } } },
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
  },
});
const Request = root.lookupType('ExportTraceServiceRequest');

/** A span as received, in one shape whatever the protocol: ids as hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  statusCode: number;
  attributes: Record<string, unknown>;
  /** The span's links (ids as hex). */
  links: { traceId: string; spanId: string }[];
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  requests: { contentType: string; bytes: number }[];
  hang: boolean;
  close(): Promise<void>;
}

type Any = { stringValue?: string; boolValue?: boolean; intValue?: number | string | { toString(): string }; doubleValue?: number; arrayValue?: { values?: Any[] } };
const plain = (v: Any | undefined): unknown => {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(String(v.intValue));
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(plain);
  return undefined;
};
const attrs = (list: { key: string; value?: Any }[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
const hex = (v: Uint8Array | string | undefined) => (v === undefined ? '' : typeof v === 'string' ? v : Buffer.from(v).toString('hex'));
const nanos = (v: unknown) => Number(BigInt(String(v ?? 0)) / 1_000_000n);

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const state = { spans: [] as ReceivedSpan[], requests: [] as { contentType: string; bytes: number }[], hang: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.hang) return; // never answered
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      state.requests.push({ contentType, bytes: body.length });
      const decoded = (contentType.includes('json') ? JSON.parse(body.toString('utf8')) : Request.toObject(Request.decode(body), { longs: String, bytes: Buffer })) as {
        resourceSpans?: { resource?: { attributes?: { key: string; value?: Any }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
      };
      for (const rs of decoded.resourceSpans ?? []) {
        const resource = attrs(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            state.spans.push({
              traceId: hex(s.traceId as Uint8Array),
              spanId: hex(s.spanId as Uint8Array),
              parentSpanId: hex(s.parentSpanId as Uint8Array | undefined),
              name: String(s.name),
              kind: Number(s.kind ?? 0),
              startMs: nanos(s.startTimeUnixNano),
              endMs: nanos(s.endTimeUnixNano),
              statusCode: Number((s.status as { code?: number } | undefined)?.code ?? 0),
              attributes: attrs(s.attributes as { key: string; value?: Any }[]),
              links: ((s.links ?? []) as { traceId?: Uint8Array; spanId?: Uint8Array }[]).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
      res.end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
