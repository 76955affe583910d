'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { errorMessage } from '@/app/_lib/errors';
import { ROLE_WORDS } from '@/app/_lib/words';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';
import { LoadError, PageSkeleton } from '../states';
import { Alert, Badge, Button, Card } from '../ui';
import { When } from '../when';
import { InviteDialog } from './invite-dialog';
import { assignable, managesMembers, ROLE_HELP, type Role } from './roles';

type Member = { userId: string; email: string; name: string | null; role: Role; joinedAt: string };
type Pending = { id: string; email: string; role: Role; expiresAt: string };

// The workspace's members and pending invitations (docs/teams.md). Everyone sees the members;
// owners and admins invite, change roles and remove (owners only for owners); anyone may leave.
// The server checks each of these again: the page only offers what the role may do.
export function MembersView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const me = useQuery({ ...trpc.account.me.queryOptions(), staleTime: 60_000 });
  const members = useQuery(trpc.members.list.queryOptions());
  const role = me.data?.role as Role | undefined;
  const manages = managesMembers(role);
  const pending = useQuery({ ...trpc.invitations.list.queryOptions(), enabled: manages });
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [revoking, setRevoking] = useState<Pending | null>(null);
  const setRole = useMutation(trpc.members.updateRole.mutationOptions());
  const remove = useMutation(trpc.members.remove.mutationOptions());
  const revoke = useMutation(trpc.invitations.revoke.mutationOptions());

  const refresh = () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: trpc.members.list.pathKey() }), queryClient.invalidateQueries({ queryKey: trpc.invitations.list.pathKey() })]);

  if (members.isPending || me.isPending) return <PageSkeleton label="Loading members" testId="members-loading" />;
  if (members.isError) return <LoadError what="the members" error={members.error} onRetry={() => void members.refetch()} testId="members-error" />;

  const owners = members.data.filter((m) => m.role === 'owner').length;
  const self = me.data?.userId;
  const canChange = (m: Member) => manages && (role === 'owner' || m.role !== 'owner');

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="max-w-2xl">
          <h1 className="text-2xl font-semibold text-slate-900">Members</h1>
          <p className="mt-1 text-sm text-slate-600">
            Who works in this workspace, and what each may do. You are {role === 'admin' || role === 'owner' ? 'an' : 'a'} <strong>{role}</strong>: {role ? ROLE_HELP[role] : ''}
          </p>
        </div>
        {manages && (
          <Button onClick={() => setInviting(true)} data-testid="invite-member">
            <span aria-hidden>+</span> Invite member
          </Button>
        )}
      </div>

      {setRole.isError && <Alert data-testid="role-error">{errorMessage(setRole.error)}</Alert>}
      <Card className="divide-y divide-slate-100" data-testid="members-list">
        {members.data.map((m) => (
          <div key={m.userId} className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6" data-testid={`member-${m.email}`}>
            <div className="min-w-0 flex-1">
              <p className="flex items-center gap-2 text-sm font-medium text-slate-900">
                <span className="truncate">{m.name || m.email}</span>
                {m.userId === self && <Badge tone="indigo">You</Badge>}
              </p>
              <p className="truncate text-xs text-slate-500">
                {m.name ? `${m.email} · ` : ''}joined <When iso={m.joinedAt} />
              </p>
            </div>
            {canChange(m) && !(m.role === 'owner' && owners === 1) ? (
              <select
                aria-label={`Role of ${m.email}`}
                className="rounded-md border-0 py-1.5 pr-8 pl-3 text-sm text-slate-900 ring-1 ring-slate-300 ring-inset focus:ring-2 focus:ring-indigo-600"
                value={m.role}
                disabled={setRole.isPending}
                data-testid={`member-role-${m.email}`}
                onChange={(e) => setRole.mutate({ userId: m.userId, role: e.target.value as Role }, { onSettled: () => void refresh().then(() => router.refresh()) })}
              >
                {assignable(role).map((r) => (
                  <option key={r} value={r}>
                    {ROLE_WORDS[r]}
                  </option>
                ))}
              </select>
            ) : (
              <Badge tone={m.role === 'owner' ? 'violet' : 'slate'} data-testid={`member-role-${m.email}`}>
                {ROLE_WORDS[m.role]}
              </Badge>
            )}
            {(m.userId === self ? !(m.role === 'owner' && owners === 1) : canChange(m)) && (
              <Button variant="secondary" className="text-red-700" onClick={() => setRemoving(m)} data-testid={`member-remove-${m.email}`}>
                {m.userId === self ? 'Leave' : 'Remove'}
              </Button>
            )}
          </div>
        ))}
      </Card>

      {manages && (
        <div className="space-y-3">
          <h2 className="text-lg font-semibold text-slate-900">Pending invitations</h2>
          {pending.isError ? (
            <LoadError what="the invitations" error={pending.error} onRetry={() => void pending.refetch()} testId="invitations-error" />
          ) : pending.data && pending.data.length === 0 ? (
            <p className="text-sm text-slate-600" data-testid="invitations-empty">
              No invitation is waiting. Invite someone with the button above: you get a link to send them.
            </p>
          ) : (
            <Card className="divide-y divide-slate-100" data-testid="invitations-list">
              {(pending.data ?? []).map((inv) => (
                <div key={inv.id} className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6" data-testid={`invitation-${inv.email}`}>
                  <div className="min-w-0 flex-1">
                    <p className="truncate text-sm font-medium text-slate-900">{inv.email}</p>
                    <p className="text-xs text-slate-500">
                      as {inv.role} · expires <When iso={inv.expiresAt} />
                    </p>
                  </div>
                  <Button variant="secondary" className="text-red-700" onClick={() => setRevoking(inv)} data-testid={`invitation-revoke-${inv.email}`}>
                    Revoke
                  </Button>
                </div>
              ))}
            </Card>
          )}
        </div>
      )}

      {inviting && <InviteDialog roles={assignable(role)} onClose={() => setInviting(false)} onInvited={() => void refresh()} />}
      {removing && (
        <ConfirmDialog
          title={removing.userId === self ? 'Leave this workspace?' : `Remove ${removing.email}?`}
          label={removing.userId === self ? 'Leave' : 'Remove'}
          variant="danger"
          pending={remove.isPending}
          error={remove.error}
          onClose={() => setRemoving(null)}
          onConfirm={() =>
            remove.mutate(
              { userId: removing.userId },
              {
                onSuccess: () => {
                  const left = removing.userId === self;
                  setRemoving(null);
                  if (left) {
                    router.replace('/dashboard/agents');
                    router.refresh();
                  } else void refresh();
                },
              },
            )
          }
          testId="remove-member-dialog"
          confirmTestId="remove-member-confirm"
          errorTestId="remove-member-error"
        >
          {removing.userId === self
            ? 'You lose access to this workspace at once; an owner or admin can invite you again.'
            : 'They lose access to this workspace with their next request. The API keys they made stay, and keep working.'}
        </ConfirmDialog>
      )}
      {revoking && (
        <ConfirmDialog
          title={`Revoke the invitation of ${revoking.email}?`}
          label="Revoke"
          variant="danger"
          pending={revoke.isPending}
          error={revoke.error}
          onClose={() => setRevoking(null)}
          onConfirm={() => revoke.mutate({ id: revoking.id }, { onSuccess: () => (setRevoking(null), void refresh()) })}
          testId="revoke-invitation-dialog"
          confirmTestId="revoke-invitation-confirm"
          errorTestId="revoke-invitation-error"
        >
          Its link stops working at once.
        </ConfirmDialog>
      )}
    </div>
  );
}
