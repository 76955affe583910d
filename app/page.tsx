import { redirect } from 'next/navigation';
import { ButtonLink, Logo } from '@/app/_components/ui';
import { currentSession, pageDatabase } from '@/server/api/next-handle';
import { visitorMaySignUp } from '@/server/modules/auth/signup';

const FEATURES = [
  { title: 'Scoped API keys', text: 'Live and test keys with exactly the permissions each program needs. Secrets are shown once.' },
  { title: 'One REST API', text: 'Create agents, execute them and follow conversations with predictable JSON and cursor pagination.' },
  { title: 'Test mode', text: 'A separate sandbox world for development and CI that never incurs charges.' },
];

export default async function Home() {
  if (await currentSession()) redirect('/dashboard/keys');
  return (
    <div className="flex min-h-screen flex-col">
      {/* On a phone the header keeps the logo and Sign in: the page offers the reference just below. */}
      <header className="mx-auto flex w-full max-w-5xl items-center justify-between gap-4 px-6 py-5">
        <Logo />
        <nav className="flex shrink-0 items-center gap-2 text-sm">
          <ButtonLink href="/docs" variant="ghost" className="max-sm:hidden">
            API reference
          </ButtonLink>
          <ButtonLink href="/signin" variant="secondary" className="whitespace-nowrap">
            Sign in
          </ButtonLink>
        </nav>
      </header>
      <main className="mx-auto flex w-full max-w-5xl flex-1 flex-col justify-center px-6 py-16">
        <p className="text-sm font-semibold text-indigo-600">Agent Automation Service</p>
        <h1 className="mt-3 max-w-2xl text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl">
          Create, run and observe AI agents from your own code.
        </h1>
        <p className="mt-5 max-w-2xl text-lg text-slate-600">
          Sign up, create an API key, and call the REST API under <code className="font-mono text-base">/v1</code>. Self-hosted,
          with a dashboard for keys and a complete API reference.
        </p>
        <div className="mt-8 flex flex-wrap gap-3">
          {(await visitorMaySignUp((await pageDatabase()).db)) && <ButtonLink href="/signup">Create an account</ButtonLink>}
          <ButtonLink href="/signin" variant="secondary">
            Sign in
          </ButtonLink>
          <ButtonLink href="/docs" variant="ghost">
            Read the API reference →
          </ButtonLink>
        </div>
        <ul className="mt-16 grid gap-6 sm:grid-cols-3">
          {FEATURES.map((f) => (
            <li key={f.title} className="rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
              <h2 className="font-semibold text-slate-900">{f.title}</h2>
              <p className="mt-2 text-sm text-slate-600">{f.text}</p>
            </li>
          ))}
        </ul>
      </main>
      <footer className="border-t border-slate-200 py-6 text-center text-sm text-slate-500">
        <a href="/v1/openapi.json" className="hover:text-slate-700">
          OpenAPI document
        </a>
      </footer>
    </div>
  );
}
