'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { UserMenu } from './account/user-menu';
import { EnvironmentSwitch } from './environment-switch';
import { useEnvironment } from './providers';
import { Badge, Logo } from './ui';

const PLAN_LABEL: Record<string, string> = { starter: 'Starter', professional: 'Professional', enterprise: 'Enterprise' };

const NAV_LINK = 'rounded-md px-2.5 py-1.5 font-medium whitespace-nowrap';
const NAV_IDLE = 'text-slate-600 hover:bg-slate-100 hover:text-slate-900';
const NAV_CURRENT = 'bg-slate-100 text-slate-900';

const SECTIONS = [
  { href: '/dashboard/agents', label: 'Agents' },
  { href: '/dashboard/executions', label: 'Executions' },
  { href: '/dashboard/usage', label: 'Usage' },
  { href: '/dashboard/keys', label: 'API keys' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: '/dashboard/events', label: 'Events' },
];

// Phones get three rows (logo and controls; workspace; navigation, which scrolls sideways inside
// itself when its links do not fit, the current one scrolled into view), up to 1280 px two (the
// workspace and the navigation share the second), wider screens one.
export function DashboardHeader({
  workspace,
  user,
}: {
  workspace: { name: string; plan: string };
  user: { email: string | null; name: string | null };
}) {
  const { environment } = useEnvironment();
  const testMode = environment === 'test';
  const pathname = usePathname();
  const navRef = useRef<HTMLElement>(null);

  // On a phone the navigation may be scrolled: keep the current section's link in view.
  useEffect(() => {
    const nav = navRef.current;
    const link = nav?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!nav || !link || nav.scrollWidth <= nav.clientWidth) return;
    const left = link.offsetLeft - nav.offsetLeft;
    if (left < nav.scrollLeft || left + link.offsetWidth > nav.scrollLeft + nav.clientWidth) nav.scrollLeft = left - 8;
  }, [pathname]);

  return (
    <header className={`border-b bg-white ${testMode ? 'border-amber-300' : 'border-slate-200'}`}>
      {testMode && <div aria-hidden className="h-1 bg-amber-400" />}
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6 md:gap-x-6">
        <Link href="/dashboard/agents" aria-label="Dashboard" className="shrink-0">
          <Logo compact />
        </Link>
        <div className="order-last flex w-full min-w-0 flex-wrap items-center gap-x-4 gap-y-2 xl:order-none xl:w-auto xl:flex-1 xl:flex-nowrap xl:gap-x-6">
          <div className="flex min-w-0 items-center gap-2 xl:border-l xl:border-slate-200 xl:pl-6">
            <span className="truncate text-sm font-medium text-slate-800" data-testid="workspace-name">
              {workspace.name}
            </span>
            <Badge tone="indigo" data-testid="workspace-plan">
              {PLAN_LABEL[workspace.plan] ?? workspace.plan}
            </Badge>
          </div>
          <nav
            ref={navRef}
            className="flex shrink-0 items-center gap-1 text-sm max-sm:-mx-2.5 max-sm:w-[calc(100%+1.25rem)] max-sm:overflow-x-auto max-sm:[scrollbar-width:none] sm:ml-auto xl:ml-0"
            aria-label="Main"
          >
            {SECTIONS.map((s) => {
              const current = pathname === s.href || pathname.startsWith(`${s.href}/`);
              return (
                <Link
                  key={s.href}
                  href={s.href}
                  className={`${NAV_LINK} ${current ? NAV_CURRENT : NAV_IDLE}`}
                  aria-current={current ? 'page' : undefined}
                  data-testid={`nav-${s.href.split('/').pop()}`}
                >
                  {s.label}
                </Link>
              );
            })}
            <Link href="/docs" className={`${NAV_LINK} ${NAV_IDLE}`}>
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
