import { ButtonLink } from '../ui';
import type { Role } from './roles';

/**
 * A page the member's role may not open (docs/teams.md): said plainly, with who may, instead of
 * a load error. The server refuses the page's calls anyway (403 insufficient_role).
 */
export function RoleRefused({ role, what, who, testId }: { role: Role; what: string; who: string; testId: string }) {
  return (
    <div className="mx-auto max-w-lg space-y-3 py-16 text-center" role="status" data-testid={testId}>
      <h1 className="text-xl font-semibold text-slate-900">Your role cannot open {what}</h1>
      <p className="text-sm text-slate-600">
        You are {role === 'admin' || role === 'owner' ? 'an' : 'a'} <strong>{role}</strong> in this workspace; {who}. Ask an owner or an admin of the
        workspace if you need it.
      </p>
      <div className="flex justify-center gap-2">
        <ButtonLink href="/dashboard" variant="secondary">
          Overview
        </ButtonLink>
        <ButtonLink href="/dashboard/members" variant="secondary">
          Members
        </ButtonLink>
      </div>
    </div>
  );
}
