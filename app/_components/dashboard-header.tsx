'use client';

import Link from 'next/link';
import { UserMenu } from './account/user-menu';
import { EnvironmentSwitch } from './environment-switch';
import { useEnvironment } from './providers';
import { Badge, Logo } from './ui';

const PLAN_LABEL: Record<string, string> = { starter: 'Starter', professional: 'Professional', enterprise: 'Enterprise' };

const NAV_LINK = 'rounded-md px-2.5 py-1.5 font-medium';

// Phones get two rows (logo and controls; workspace and navigation), wider screens one.
export function DashboardHeader({
  workspace,
  user,
}: {
  workspace: { name: string; plan: string };
  user: { email: string | null; name: string | null };
}) {
  const { environment } = useEnvironment();
  const testMode = environment === 'test';

  return (
    <header className={`border-b bg-white ${testMode ? 'border-amber-300' : 'border-slate-200'}`}>
      {testMode && <div aria-hidden className="h-1 bg-amber-400" />}
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6 md:gap-x-6">
        <Link href="/dashboard/keys" aria-label="Dashboard" className="shrink-0">
          <Logo compact />
        </Link>
        <div className="order-last flex w-full min-w-0 items-center gap-x-4 md:order-none md:w-auto md:flex-1 md:gap-x-6">
          <div className="flex min-w-0 items-center gap-2 md:border-l md:border-slate-200 md:pl-6">
            <span className="truncate text-sm font-medium text-slate-800" data-testid="workspace-name">
              {workspace.name}
            </span>
            <Badge tone="indigo" data-testid="workspace-plan">
              {PLAN_LABEL[workspace.plan] ?? workspace.plan}
            </Badge>
          </div>
          <nav className="ml-auto flex shrink-0 items-center gap-1 text-sm md:ml-0" aria-label="Main">
            <Link href="/dashboard/keys" className={`${NAV_LINK} bg-slate-100 text-slate-900`} aria-current="page">
              API keys
            </Link>
            <Link href="/docs" className={`${NAV_LINK} text-slate-600 hover:bg-slate-100 hover:text-slate-900`}>
              Docs
            </Link>
          </nav>
        </div>
        <div className="ml-auto flex shrink-0 items-center gap-2 sm:gap-3">
          {testMode && (
            <Badge tone="amber" data-testid="test-mode-badge">
              Test mode
            </Badge>
          )}
          <EnvironmentSwitch />
          <UserMenu user={user} />
        </div>
      </div>
    </header>
  );
}
