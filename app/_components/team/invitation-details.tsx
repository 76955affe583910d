import { formatDateTime, formatRelative } from '@/app/_lib/dates';
import { ROLE_WORDS } from '@/app/_lib/words';
import { ROLE_HELP, type Role } from './roles';

/** What a usable invitation link says (invitations.preview and .peek answer the same). */
export interface InvitationInfo {
  workspace: string;
  role: Role;
  email: string;
  invitedBy: string | null;
  expiresAt: string;
}

// An invitation's facts, the same signed in and signed out: the workspace, the role and what it
// may do, who sent it, the address it is for and until when it works.
export function InvitationDetails({ invitation, now }: { invitation: InvitationInfo; now: number }) {
  const rows: [string, React.ReactNode, string][] = [
    ['Workspace', <strong key="w" className="font-semibold text-slate-900">{invitation.workspace}</strong>, 'invite-workspace'],
    [
      'Role',
      <span key="r">
        <span className="font-medium text-slate-900">{ROLE_WORDS[invitation.role]}</span>
        <span className="block text-xs text-slate-500">{ROLE_HELP[invitation.role]}</span>
      </span>,
      'invite-role',
    ],
    ['Invited by', invitation.invitedBy ?? 'This server’s operator', 'invite-inviter'],
    ['For', <span key="e" className="font-medium break-words text-slate-900">{invitation.email}</span>, 'invite-email'],
    [
      'Expires',
      <time key="x" dateTime={invitation.expiresAt}>
        {formatDateTime(invitation.expiresAt)} <span className="whitespace-nowrap text-slate-500">({formatRelative(invitation.expiresAt, now)})</span>
      </time>,
      'invite-expiry',
    ],
  ];
  return (
    <dl className="divide-y divide-slate-100 rounded-md text-sm ring-1 ring-slate-200" data-testid="invite-details">
      {rows.map(([label, value, testId]) => (
        <div key={label} className="grid grid-cols-[6rem_1fr] gap-3 px-3 py-2">
          <dt className="text-slate-500">{label}</dt>
          <dd className="min-w-0 text-slate-700" data-testid={testId}>
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
