import type { Metadata } from 'next';
import Link from 'next/link';
import type { OperationObject } from 'openapi3-ts/oas31';
import { INTRO_SECTIONS, IntroSections } from '@/app/_components/docs/intro';
import { MethodBadge, Operation, type DocOperation } from '@/app/_components/docs/operation';
import { RichText } from '@/app/_components/docs/fields-table';
import { Logo } from '@/app/_components/ui';
import { buildOpenApiDocument } from '@/server/openapi';
import { buildRouteTable } from '@/server/rest/routes';
import { appRouter } from '@/server/trpc/router';

export const metadata: Metadata = { title: 'API reference' };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

// The reference is rendered from the same OpenAPI document /v1/openapi.json serves, so it
// cannot drift from the procedures' schemas.
function operationsByTag() {
  const doc = buildOpenApiDocument();
  const scopes = new Map(buildRouteTable(appRouter).map((r) => [`${r.method} ${r.template}`, r.scope]));
  const groups = new Map<string, DocOperation[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) {
      const op = item[m] as OperationObject | undefined;
      if (!op) continue;
      const method = m.toUpperCase();
      const tag = op.tags?.[0] ?? 'Other';
      const entry: DocOperation = { id: `op-${op.operationId ?? `${m}-${path}`.replace(/[^\w-]/g, '-')}`, method, path, op, scope: scopes.get(`${method} ${path}`) };
      groups.set(tag, [...(groups.get(tag) ?? []), entry]);
    }
  }
  return { doc, groups: [...groups.entries()] };
}

export default function DocsPage() {
  const { doc, groups } = operationsByTag();
  return (
    <div className="min-h-screen bg-white">
      <header className="border-b border-slate-200">
        <div className="mx-auto flex max-w-7xl items-center justify-between gap-4 px-6 py-4">
          <Link href="/" aria-label="Home">
            <Logo />
          </Link>
          <nav className="flex items-center gap-4 text-sm font-medium">
            <a href="/v1/openapi.json" className="text-slate-600 hover:text-slate-900" data-testid="openapi-link">
              openapi.json
            </a>
            <Link href="/dashboard/keys" className="rounded-md bg-indigo-600 px-3 py-1.5 text-white hover:bg-indigo-500">
              Dashboard
            </Link>
          </nav>
        </div>
      </header>
      <div className="mx-auto flex max-w-7xl gap-10 px-6">
        <aside className="hidden w-60 shrink-0 lg:block">
          <nav className="sticky top-0 max-h-screen overflow-y-auto py-10 text-sm" aria-label="API reference">
            <p className="font-semibold text-slate-900">Introduction</p>
            <ul className="mt-2 space-y-1 border-l border-slate-200">
              {INTRO_SECTIONS.map((s) => (
                <li key={s.id}>
                  <a href={`#${s.id}`} className="-ml-px block border-l border-transparent py-0.5 pl-3 text-slate-600 hover:border-slate-400 hover:text-slate-900">
                    {s.title}
                  </a>
                </li>
              ))}
            </ul>
            {groups.map(([tag, ops]) => (
              <div key={tag} className="mt-6">
                <p className="font-semibold text-slate-900">{tag}</p>
                <ul className="mt-2 space-y-1">
                  {ops.map((o) => (
                    <li key={o.id}>
                      <a href={`#${o.id}`} className="flex items-center gap-2 rounded py-0.5 text-slate-600 hover:text-slate-900">
                        <MethodBadge method={o.method} small />
                        <span className="truncate">{o.op.summary ?? o.path}</span>
                      </a>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </nav>
        </aside>
        <main className="min-w-0 flex-1 space-y-12 py-10">
          <div>
            <p className="text-sm font-semibold text-indigo-600">API reference · v{doc.info.version}</p>
            <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900">{doc.info.title}</h1>
            {doc.info.description && (
              <p className="mt-4 max-w-3xl text-lg text-slate-600">
                <RichText text={doc.info.description} />
              </p>
            )}
            <p className="mt-4 max-w-3xl text-slate-600">
              The base URL is your server&apos;s origin followed by <code className="font-mono text-sm">/v1</code> (the examples use{' '}
              <code className="font-mono text-sm">$BASE_URL</code> for it). Requests and responses are JSON; timestamps are ISO 8601 UTC
              with milliseconds. The machine-readable OpenAPI 3.1 document is at{' '}
              <a href="/v1/openapi.json" className="font-medium text-indigo-600 hover:underline">
                /v1/openapi.json
              </a>
              .
            </p>
          </div>
          <IntroSections />
          {groups.map(([tag, ops]) => (
            <div key={tag} className="space-y-10">
              <h2 className="border-t border-slate-200 pt-10 text-2xl font-semibold text-slate-900">{tag}</h2>
              {ops.map((o) => (
                <Operation key={o.id} doc={doc} d={o} />
              ))}
            </div>
          ))}
        </main>
      </div>
    </div>
  );
}
