'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useId, useRef, useState } from 'react';
import { UserMenu } from './account/user-menu';
import { usePendingApprovals } from './approvals/use-pending-approvals';
import { EnvironmentSwitch } from './environment-switch';
import { useEnvironment } from './providers';
import { useCan } from './team/use-can';
import { Badge, Logo } from './ui';

const PLAN_LABEL: Record<string, string> = { starter: 'Starter', professional: 'Professional', enterprise: 'Enterprise' };

// In the header's row from 1024 px up (eleven links and Docs, ~910 px, beside or under the
// workspace's name: set a little tighter than ten were, so that the name keeps ~240 px beside them
// at 1280 px and, on their own row at 1024 px, they fit with the approvals count); below, one a
// line in the Menu panel.
const NAV_LINK = 'inline-flex items-center rounded-md px-2.25 py-1.5 font-medium whitespace-nowrap max-lg:px-3 max-lg:py-2.5';
const NAV_IDLE = 'text-slate-600 hover:bg-slate-100 hover:text-slate-900';
const NAV_CURRENT = 'bg-slate-100 text-slate-900';

/** How often the header reads the calls awaiting approval again (the Approvals page itself reads them faster). */
const APPROVALS_POLL_MS = 5_000;

/** The count of calls awaiting a decision, beside "Approvals" (and on the phone's Menu button); nothing at 0. */
function PendingCount({ count, more, testId }: { count: number; more: boolean; testId: string }) {
  if (count === 0) return null;
  return (
    <>
      <span className="ml-1.5 inline-grid min-w-5 place-items-center rounded-full bg-violet-600 px-1.5 text-xs leading-5 font-semibold text-white tabular-nums" data-testid={testId}>
        {more ? `${count}+` : count}
      </span>
      <span className="sr-only"> awaiting approval</span>
    </>
  );
}

interface Section {
  href: string;
  label: string;
  /** Its test id's suffix (`nav-<id>`); the last part of `href` by default. */
  id?: string;
  /** Other pages it is the current section on. */
  also?: string[];
}

/**
 * Evals (docs/evals.md): one link, to the experiments, current on the datasets too (the evals
 * pages have tabs of their own, app/_components/experiments/evals-tabs.tsx). A link each would
 * not fit the header's row at 1024 px beside the approvals count.
 */
const EVALS: Section[] = [{ href: '/dashboard/experiments', label: 'Evals', id: 'evals', also: ['/dashboard/datasets'] }];

const SECTIONS: Section[] = [
  { href: '/dashboard/agents', label: 'Agents' },
  { href: '/dashboard/executions', label: 'Executions' },
  { href: '/dashboard/conversations', label: 'Conversations' },
  { href: '/dashboard/schedules', label: 'Schedules' },
  { href: '/dashboard/approvals', label: 'Approvals' },
  ...EVALS,
  { href: '/dashboard/usage', label: 'Usage' },
  { href: '/dashboard/budgets', label: 'Budgets' },
  { href: '/dashboard/keys', label: 'API keys' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: '/dashboard/events', label: 'Events' },
];

// Two rows on every screen: the logo and the controls, then the workspace and the navigation (below
// 1024 px the Menu button, whose panel lists every section, one per line, so however many there
// are each is in view). The header is never wider than 1280 px, and one row would leave the
// workspace's name a few letters beside eleven links, the switch and the account. The name takes
// what the links leave; when that is under 11 rem the links move to a row of their own. The
// navigation is one element either way, restyled as the panel on a phone or a tablet.
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
  const [open, setOpen] = useState(false);
  const navRef = useRef<HTMLElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const navId = useId();
  const pending = usePendingApprovals(APPROVALS_POLL_MS);
  // A viewer never sees a key (docs/teams.md): no API keys link for them.
  const { role } = useCan();
  const sections = role === 'viewer' ? SECTIONS.filter((s) => s.href !== '/dashboard/keys') : SECTIONS;

  // The open panel closes on Escape (focus back on its button) and on a press outside it.
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!navRef.current?.contains(target) && !buttonRef.current?.contains(target)) setOpen(false);
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  return (
    <header className={`relative border-b bg-white ${testMode ? 'border-amber-300' : 'border-slate-200'}`}>
      {testMode && <div aria-hidden className="h-1 bg-amber-400" />}
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6 md:gap-x-6">
        <Link href="/dashboard/agents" aria-label="Dashboard" className="shrink-0">
          <Logo compact />
        </Link>
        <div className="order-last flex w-full min-w-0 flex-wrap items-center gap-x-6 gap-y-2 max-lg:flex-nowrap max-lg:gap-x-4">
          <div className="flex min-w-0 flex-1 items-center gap-2 lg:min-w-44">
            <span className="truncate text-sm font-medium text-slate-800" title={workspace.name} data-testid="workspace-name">
              {workspace.name}
            </span>
            <Badge tone="indigo" data-testid="workspace-plan">
              {PLAN_LABEL[workspace.plan] ?? workspace.plan}
            </Badge>
          </div>
          <button
            ref={buttonRef}
            type="button"
            aria-expanded={open}
            aria-controls={navId}
            onClick={() => setOpen((o) => !o)}
            data-testid="nav-menu"
            className="-my-1 ml-auto inline-flex shrink-0 items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-medium text-slate-700 ring-1 ring-slate-200 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 aria-expanded:bg-slate-100 lg:hidden"
          >
            <svg aria-hidden viewBox="0 0 20 20" className="size-4 fill-none stroke-current" strokeWidth={1.8} strokeLinecap="round">
              {open ? <path d="M5 5l10 10M15 5 5 15" /> : <path d="M3.5 5.5h13M3.5 10h13M3.5 14.5h13" />}
            </svg>
            Menu
            <PendingCount count={pending.count} more={pending.more} testId="nav-menu-approvals-count" />
          </button>
          <nav
            ref={navRef}
            id={navId}
            className={`${open ? 'max-lg:flex' : 'max-lg:hidden'} flex shrink-0 items-center gap-0.5 text-sm max-lg:absolute max-lg:inset-x-0 max-lg:top-full max-lg:z-20 max-lg:flex-col max-lg:items-stretch max-lg:border-b max-lg:border-slate-200 max-lg:bg-white max-lg:px-2 max-lg:py-2 max-lg:shadow-lg lg:ml-auto`}
            aria-label="Main"
          >
            {sections.map((s) => {
              const current = [s.href, ...(s.also ?? [])].some((href) => pathname === href || pathname.startsWith(`${href}/`));
              return (
                <Link
                  key={s.href}
                  href={s.href}
                  onClick={() => setOpen(false)}
                  className={`${NAV_LINK} ${current ? NAV_CURRENT : NAV_IDLE}`}
                  aria-current={current ? 'page' : undefined}
                  data-testid={`nav-${s.id ?? s.href.split('/').pop()}`}
                >
                  {s.label}
                  {s.href === '/dashboard/approvals' && <PendingCount count={pending.count} more={pending.more} testId="nav-approvals-count" />}
                </Link>
              );
            })}
            <span aria-hidden className="mx-3 my-1 border-t border-slate-100 lg:hidden" />
            <Link href="/docs" onClick={() => setOpen(false)} className={`${NAV_LINK} ${NAV_IDLE}`} data-testid="nav-docs">
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
