import type { Metadata } from 'next';
import Link from 'next/link';
import { ApiReference } from '@/app/_components/api-reference';
import { Logo } from '@/app/_components/ui';

export const metadata: Metadata = { title: 'API reference' };

// The reference is rendered from /v1/openapi.json, the document generated from the procedures'
// own schemas, so it cannot drift from the API.
export default function DocsPage() {
  return (
    <div className="min-h-screen bg-white">
      <header className="sticky top-0 z-30 h-[57px] border-b border-slate-200 bg-white">
        <div className="flex h-full items-center justify-between gap-4 px-4 sm:px-6">
          <Link href="/" aria-label="Home" className="shrink-0">
            <Logo compact />
          </Link>
          <nav className="flex items-center gap-3 text-sm font-medium sm:gap-4">
            <span className="hidden text-slate-900 sm:inline">API reference</span>
            <a href="/v1/openapi.json" className="text-slate-600 hover:text-slate-900" data-testid="openapi-link">
              openapi.json
            </a>
            <Link href="/dashboard/keys" className="rounded-md bg-indigo-600 px-3 py-1.5 text-white hover:bg-indigo-500">
              Dashboard
            </Link>
          </nav>
        </div>
      </header>
      <h1 className="sr-only">API reference</h1>
      <ApiReference />
    </div>
  );
}
