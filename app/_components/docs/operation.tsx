import type { MediaTypeObject, OpenAPIObject, OperationObject, ParameterObject, RequestBodyObject, ResponseObject } from 'openapi3-ts/oas31';
import type { ReactNode } from 'react';
import { CodeBlock, FieldsTable, RichText } from './fields-table';
import { exampleOf, fieldRows, resolve, typeLabel, type FieldRow } from './schema';

export interface DocOperation {
  id: string;
  method: string;
  path: string;
  op: OperationObject;
  scope?: string;
}

const METHOD_COLOURS: Record<string, string> = {
  GET: 'bg-sky-100 text-sky-800 ring-sky-600/20',
  POST: 'bg-emerald-100 text-emerald-800 ring-emerald-600/20',
  PATCH: 'bg-amber-100 text-amber-800 ring-amber-600/20',
  PUT: 'bg-amber-100 text-amber-800 ring-amber-600/20',
  DELETE: 'bg-rose-100 text-rose-800 ring-rose-600/20',
};

export function MethodBadge({ method, small }: { method: string; small?: boolean }) {
  return (
    <span
      className={`inline-flex shrink-0 justify-center rounded font-mono font-bold ring-1 ring-inset ${small ? 'w-12 px-1 py-0 text-[10px]' : 'px-2 py-0.5 text-xs'} ${
        METHOD_COLOURS[method] ?? 'bg-slate-100 text-slate-700 ring-slate-500/20'
      }`}
    >
      {method}
    </span>
  );
}

const json = (content: Record<string, MediaTypeObject> | undefined) => content?.['application/json']?.schema;

// The shared pagination parameters carry no description in the schema; say what they do.
const PARAMETER_HINTS: Record<string, string> = {
  limit: 'Items per page (default 20).',
  after: 'Cursor: return the items older than this id (the nextCursor of the previous page).',
  before: 'Cursor: return the items newer than this id (the prevCursor of the previous page). Not with after.',
};

function parameterRows(doc: OpenAPIObject, op: OperationObject): FieldRow[] {
  return (op.parameters ?? []).map((p) => {
    const param = resolve<ParameterObject>(doc, p);
    const row = param.schema ? fieldRows(doc, { type: 'object', properties: { [param.name]: param.schema } })[0] : undefined;
    return {
      name: param.name,
      type: `${param.in} · ${param.schema ? typeLabel(doc, param.schema) : 'string'}`,
      required: param.required ?? false,
      description: param.description ?? row?.description ?? (param.in === 'query' ? PARAMETER_HINTS[param.name] : undefined),
      notes: row?.notes ?? [],
    };
  });
}

function curlFor(d: DocOperation, body: unknown): string {
  const lines = [`curl -X ${d.method} "$BASE_URL${d.path.replace(/^\/v1/, '')}"`, '  -H "Authorization: Bearer $API_KEY"'];
  if (body !== undefined) {
    lines.push('  -H "Content-Type: application/json"');
    lines.push(`  -d '${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}'`);
  }
  return lines.join(' \\\n');
}

function H({ children }: { children: ReactNode }) {
  return <h4 className="mb-2 text-sm font-semibold text-slate-900">{children}</h4>;
}

export function Operation({ doc, d }: { doc: OpenAPIObject; d: DocOperation }) {
  const { op } = d;
  const params = parameterRows(doc, op);
  const requestBody = op.requestBody ? resolve<RequestBodyObject>(doc, op.requestBody) : undefined;
  const requestSchema = json(requestBody?.content);
  const responses = Object.entries(op.responses ?? {}).map(([status, r]) => ({ status, res: resolve<ResponseObject>(doc, r) }));
  const successes = responses.filter((r) => r.status.startsWith('2'));
  const failures = responses.filter((r) => !r.status.startsWith('2'));
  const body = requestSchema ? exampleOf(doc, requestSchema) : undefined;

  return (
    <section id={d.id} className="scroll-mt-6 border-t border-slate-200 pt-10" data-testid="doc-operation">
      <div className="flex flex-wrap items-center gap-3">
        <MethodBadge method={d.method} />
        <code className="font-mono text-base font-semibold text-slate-900">{d.path}</code>
      </div>
      <h3 className="mt-3 text-xl font-semibold text-slate-900">{op.summary ?? `${d.method} ${d.path}`}</h3>
      {op.description && (
        <p className="mt-2 text-slate-600">
          <RichText text={op.description} />
        </p>
      )}
      <p className="mt-3 text-sm text-slate-600">
        {d.scope ? (
          <>
            Requires an API key with the <code className="rounded bg-indigo-50 px-1.5 py-0.5 font-mono text-xs text-indigo-700">{d.scope}</code> scope.
          </>
        ) : op.security?.length === 0 ? (
          'No authentication required.'
        ) : (
          'Requires an API key.'
        )}
      </p>

      <div className="mt-6 grid gap-8 xl:grid-cols-[minmax(0,1fr)_minmax(0,24rem)]">
        <div className="min-w-0 space-y-6">
          {params.length > 0 && (
            <div>
              <H>Parameters</H>
              <FieldsTable rows={params} />
            </div>
          )}
          {requestSchema && (
            <div>
              <H>Request body</H>
              <FieldsTable rows={fieldRows(doc, requestSchema)} empty="Send an empty JSON object." />
            </div>
          )}
          {successes.map(({ status, res }) => {
            const schema = json(res.content);
            return (
              <div key={status}>
                <H>
                  Response <span className="ml-1 rounded bg-emerald-50 px-1.5 py-0.5 font-mono text-xs text-emerald-700">{status}</span>
                </H>
                <p className="mb-2 text-sm text-slate-600">{res.description}</p>
                {schema && <FieldsTable rows={fieldRows(doc, schema)} />}
              </div>
            );
          })}
          <div>
            <H>Errors</H>
            <p className="mb-2 text-sm text-slate-600">
              Every error has the <a href="#errors" className="font-medium text-indigo-600 hover:underline">error envelope</a> body.
            </p>
            <ul className="divide-y divide-slate-100 rounded-lg text-sm ring-1 ring-slate-200">
              {failures.map(({ status, res }) => (
                <li key={status} className="flex gap-3 px-3 py-2">
                  <code className="w-10 shrink-0 font-mono font-semibold text-rose-700">{status}</code>
                  <span className="text-slate-700">{res.description}</span>
                </li>
              ))}
            </ul>
          </div>
        </div>
        <div className="min-w-0 space-y-4 xl:sticky xl:top-6 xl:self-start">
          <CodeBlock label="Request">{curlFor(d, body)}</CodeBlock>
          {successes.slice(0, 1).map(({ status, res }) => {
            const schema = json(res.content);
            return schema ? (
              <CodeBlock key={status} label={`Response ${status}`}>
                {JSON.stringify(exampleOf(doc, schema), null, 2)}
              </CodeBlock>
            ) : null;
          })}
        </div>
      </div>
    </section>
  );
}
