import type { Metadata } from 'next';
import Link from 'next/link';
import { ButtonLink, Logo } from '@/app/_components/ui';

export const metadata: Metadata = { title: 'Page not found' };

// Every unknown page of the dashboard (the REST API answers its own JSON 404s under /v1).
export default function NotFound() {
  return (
    <div className="flex min-h-screen flex-col">
      <header className="mx-auto w-full max-w-5xl px-6 py-5">
        <Link href="/" aria-label="Home" className="inline-block">
          <Logo />
        </Link>
      </header>
      <main className="mx-auto flex w-full max-w-5xl flex-1 flex-col items-center justify-center px-6 pb-24 text-center" data-testid="not-found">
        <p className="rounded-full bg-indigo-50 px-3 py-1 font-mono text-sm font-semibold text-indigo-700 ring-1 ring-indigo-600/20 ring-inset">
          404
        </p>
        <h1 className="mt-5 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">Page not found</h1>
        <p className="mt-3 max-w-md text-slate-600">
          There is nothing at this address. It may have moved, or the link may have a typo.
        </p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <ButtonLink href="/" data-testid="not-found-home">
            Go to the home page
          </ButtonLink>
          <ButtonLink href="/dashboard/keys" variant="secondary" data-testid="not-found-dashboard">
            Open the dashboard
          </ButtonLink>
        </div>
        <p className="mt-6 text-sm text-slate-500">
          Looking for the API?{' '}
          <Link href="/docs" className="font-medium text-indigo-600 hover:text-indigo-500">
            Read the API reference
          </Link>
        </p>
      </main>
    </div>
  );
}
