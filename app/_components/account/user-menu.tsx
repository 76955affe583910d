'use client';

import { signOut } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../providers';
import { useCan } from '../team/use-can';
import { Spinner } from '../ui';
import { ChangePasswordDialog } from './change-password-dialog';
import { SignOutEverywhereDialog } from './sign-out-everywhere-dialog';

type Dialog = 'password' | 'everywhere' | null;

const ITEM =
  'flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm text-slate-700 outline-none hover:bg-slate-100 focus-visible:bg-slate-100 disabled:text-slate-400';

function initialOf(user: { email: string | null; name: string | null }): string {
  return (user.name || user.email || '?').trim().charAt(0).toUpperCase() || '?';
}

// The account menu in the dashboard header: who is signed in, their workspaces (to switch), the
// members page, password, and the sign-outs.
export function UserMenu({ user }: { user: { email: string | null; name: string | null } }) {
  const router = useRouter();
  const { administer } = useCan();
  const [open, setOpen] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [signingOut, setSigningOut] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  // Focus the first item on open; a press outside the menu closes it.
  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onPointerDown = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  function onMenuKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not(:disabled), [role="menuitemradio"]:not(:disabled)') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => {
      e.preventDefault();
      items[(to + items.length) % items.length]?.focus();
    };
    if (e.key === 'ArrowDown') move(at + 1);
    else if (e.key === 'ArrowUp') move(at - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(items.length - 1);
    else if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
      trigger.current?.focus();
    } else if (e.key === 'Tab') setOpen(false);
  }

  function choose(next: Dialog) {
    setOpen(false);
    setDialog(next);
  }

  function closeDialog() {
    setDialog(null);
    trigger.current?.focus();
  }

  // The workspaces the user belongs to (a switcher when there are several): the choice is kept by the server.
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const workspaces = useQuery({ ...trpc.workspaces.list.queryOptions(), staleTime: 60_000 });
  const switchTo = useMutation(trpc.workspaces.switch.mutationOptions());
  function onSwitch(workspaceId: string) {
    switchTo.mutate(
      { workspaceId },
      {
        onSuccess: () => {
          setOpen(false);
          // Everything on the page was the other workspace's.
          queryClient.clear();
          router.replace('/dashboard/agents');
          router.refresh();
        },
      },
    );
  }

  async function onSignOut() {
    setSigningOut(true);
    await signOut({ redirect: false }).catch(() => undefined);
    router.replace('/signin');
    router.refresh();
  }

  const label = user.name || user.email || 'Account';

  return (
    <div ref={root} className="relative">
      <button
        ref={trigger}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={`Account menu for ${label}`}
        onClick={() => setOpen((o) => !o)}
        data-testid="user-menu"
        className="flex max-w-56 items-center gap-2 rounded-full py-1 pr-2 pl-1 text-sm text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        <span aria-hidden className="grid size-7 shrink-0 place-items-center rounded-full bg-slate-800 text-xs font-semibold text-white">
          {initialOf(user)}
        </span>
        <span className="hidden truncate font-medium md:inline">{label}</span>
        <svg aria-hidden viewBox="0 0 20 20" className="size-4 shrink-0 fill-slate-400">
          <path d="M5.2 7.2a.75.75 0 0 1 1.06 0L10 10.94l3.74-3.74a.75.75 0 1 1 1.06 1.06l-4.27 4.27a.75.75 0 0 1-1.06 0L5.2 8.26a.75.75 0 0 1 0-1.06Z" />
        </svg>
      </button>

      {open && (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label="Account"
          onKeyDown={onMenuKeyDown}
          data-testid="user-menu-items"
          className="absolute right-0 z-20 mt-2 w-64 max-w-[calc(100vw-2rem)] rounded-xl bg-white p-1.5 shadow-lg ring-1 ring-slate-200"
        >
          <div className="border-b border-slate-100 px-3 pt-1.5 pb-2.5">
            <p className="text-xs text-slate-500">Signed in as</p>
            <p className="truncate text-sm font-medium text-slate-900" title={user.email ?? undefined}>
              {user.email ?? label}
            </p>
          </div>
          {workspaces.data && workspaces.data.length > 1 && (
            <div className="space-y-0.5 border-b border-slate-100 py-1.5" role="group" aria-label="Workspaces">
              <p className="px-3 pt-1 text-xs text-slate-500">Workspaces</p>
              {workspaces.data.map((w) => (
                <button
                  key={w.id}
                  type="button"
                  role="menuitemradio"
                  aria-checked={w.current}
                  tabIndex={-1}
                  className={ITEM}
                  disabled={switchTo.isPending}
                  onClick={() => (w.current ? setOpen(false) : onSwitch(w.id))}
                  data-testid={`workspace-${w.id}`}
                >
                  <span aria-hidden className="w-3.5 text-indigo-600">{w.current ? '✓' : ''}</span>
                  <span className="min-w-0 flex-1 truncate">{w.name}</span>
                  <span className="text-xs text-slate-500">{w.role}</span>
                </button>
              ))}
            </div>
          )}
          <div className="space-y-0.5 pt-1.5">
            <button type="button" role="menuitem" tabIndex={-1} className={ITEM} onClick={() => (setOpen(false), router.push('/dashboard/members'))} data-testid="nav-members">
              Members
            </button>
            {administer && (
              <button type="button" role="menuitem" tabIndex={-1} className={ITEM} onClick={() => (setOpen(false), router.push('/dashboard/audit'))} data-testid="nav-audit">
                Audit log
              </button>
            )}
            <button type="button" role="menuitem" tabIndex={-1} className={ITEM} onClick={() => choose('password')} data-testid="change-password">
              Change password
            </button>
            <button
              type="button"
              role="menuitem"
              tabIndex={-1}
              className={ITEM}
              onClick={() => choose('everywhere')}
              data-testid="sign-out-everywhere"
            >
              Sign out everywhere
            </button>
            <button type="button" role="menuitem" tabIndex={-1} className={ITEM} onClick={onSignOut} disabled={signingOut} data-testid="sign-out">
              {signingOut && <Spinner className="size-3.5" />}
              Sign out
            </button>
          </div>
        </div>
      )}

      {dialog === 'password' && <ChangePasswordDialog onClose={closeDialog} />}
      {dialog === 'everywhere' && <SignOutEverywhereDialog onClose={closeDialog} />}
    </div>
  );
}
