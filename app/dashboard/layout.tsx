import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { DashboardHeader } from '@/app/_components/dashboard-header';
import { Providers } from '@/app/_components/providers';
import { ENVIRONMENT_COOKIE } from '@/app/_lib/environment';
import { getWorkspace } from '@/server/modules/auth/users';
import { memberOf } from '@/server/modules/auth/members';
import { parseEnvironment } from '@/server/modules/auth/session';
import { currentSession, pageDatabase } from '@/server/api/next-handle';

// Every dashboard page: signed-in users only, with the workspace header and the environment
// chosen last time (a cookie, so the first render is already right).
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  if (!session) redirect('/signin');
  const [{ db }, jar] = await Promise.all([pageDatabase(), cookies()]);
  // The workspace the user chose (or their oldest), read now: a member removed meanwhile sees their own.
  const member = await memberOf(db, session.userId);
  const workspace = member && (await getWorkspace(db, member.workspaceId));
  if (!workspace) redirect('/signin');
  const environment = parseEnvironment(jar.get(ENVIRONMENT_COOKIE)?.value);

  return (
    <Providers initialEnvironment={environment}>
      <div className="flex min-h-screen flex-col">
        <DashboardHeader
          workspace={{ name: workspace.name, plan: workspace.plan }}
          user={{ email: session.user?.email ?? null, name: session.user?.name ?? null }}
        />
        <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-8 sm:px-6">{children}</main>
      </div>
    </Providers>
  );
}
