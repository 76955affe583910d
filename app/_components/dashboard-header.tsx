'use client';

import { signOut } from 'next-auth/react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { EnvironmentSwitch } from './environment-switch';
import { useEnvironment } from './providers';
import { Badge, Button, Logo } from './ui';

const PLAN_LABEL: Record<string, string> = { starter: 'Starter', professional: 'Professional', enterprise: 'Enterprise' };

export function DashboardHeader({
  workspace,
  user,
}: {
  workspace: { name: string; plan: string };
  user: { email: string | null; name: string | null };
}) {
  const { environment } = useEnvironment();
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);
  const testMode = environment === 'test';

  async function onSignOut() {
    setSigningOut(true);
    await signOut({ redirect: false }).catch(() => undefined);
    router.replace('/signin');
    router.refresh();
  }

  return (
    <header className={`border-b bg-white ${testMode ? 'border-amber-300' : 'border-slate-200'}`}>
      {testMode && <div aria-hidden className="h-1 bg-amber-400" />}
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-3 px-4 py-3 sm:px-6">
        <Link href="/dashboard/keys" aria-label="Dashboard">
          <Logo />
        </Link>
        <div className="flex min-w-0 items-center gap-2 sm:border-l sm:border-slate-200 sm:pl-6">
          <span className="truncate text-sm font-medium text-slate-800" data-testid="workspace-name">
            {workspace.name}
          </span>
          <Badge tone="indigo" data-testid="workspace-plan">
            {PLAN_LABEL[workspace.plan] ?? workspace.plan}
          </Badge>
        </div>
        <nav className="flex items-center gap-1 text-sm" aria-label="Main">
          <Link href="/dashboard/keys" className="rounded-md px-2.5 py-1.5 font-medium text-slate-900 hover:bg-slate-100" aria-current="page">
            API keys
          </Link>
          <Link href="/docs" className="rounded-md px-2.5 py-1.5 font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900">
            Docs
          </Link>
        </nav>
        <div className="ml-auto flex items-center gap-3">
          {testMode && (
            <Badge tone="amber" data-testid="test-mode-badge">
              Test mode
            </Badge>
          )}
          <EnvironmentSwitch />
          <span className="hidden text-sm text-slate-500 md:inline" title={user.email ?? undefined}>
            {user.name || user.email}
          </span>
          <Button variant="secondary" onClick={onSignOut} disabled={signingOut} data-testid="sign-out">
            Sign out
          </Button>
        </div>
      </div>
    </header>
  );
}
