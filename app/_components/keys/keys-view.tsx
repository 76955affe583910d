'use client';

import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import type { CreatedKey, KeyItem, StarterCall } from '@/app/_lib/types';
import { rangeOf } from '@/app/_lib/usage';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { ListFooter } from '../states';
import { Alert, Button, ButtonLink, Card } from '../ui';
import { REFRESH_MS, useWindow } from '../usage/use-usage';
import { CreateKeyDialog } from './create-key-dialog';
import { KeysSkeleton, KeysTable } from './keys-table';
import { RevokeDialog } from './revoke-dialog';
import { SecretModal } from './secret-modal';
import { RoleRefused } from '../team/role-refused';
import { useCan } from '../team/use-can';

const PAGE_SIZE = 20;

function KeyIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" className="size-6">
      <circle cx="7.5" cy="15.5" r="4.5" />
      <path d="m10.7 12.3 9.8-9.8M17 6l3 3M14.5 8.5l2 2" />
    </svg>
  );
}

export function KeysView({ starterCalls }: { starterCalls: readonly StarterCall[] }) {
  const can = useCan();
  // A viewer never sees a key, not even its prefix (docs/teams.md): said so, not a load error.
  if (can.role !== undefined && !can.keys) return <RoleRefused role={can.role} what="API keys" who="keys are for developers, admins and owners" testId="keys-refused" />;
  return <KeysList starterCalls={starterCalls} />;
}

function KeysList({ starterCalls }: { starterCalls: readonly StarterCall[] }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const { environment, setEnvironment } = useEnvironment();
  const testMode = environment === 'test';

  const account = useQuery({ ...trpc.account.me.queryOptions(), staleTime: 5 * 60_000 });
  // keys.list pages by `after`, so the pages are fetched through the client directly; the
  // query key sits under keys.list, so invalidating keys.list refreshes them.
  const list = useInfiniteQuery({
    queryKey: [...trpc.keys.list.pathKey(), 'pages'],
    queryFn: ({ pageParam, signal }) =>
      client.keys.list.query(pageParam ? { limit: PAGE_SIZE, after: pageParam } : { limit: PAGE_SIZE }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });

  // Each key's requests in the last 24 hours: one row per key over 24 hour buckets.
  const day = useWindow(rangeOf('24h'));
  const usage = useQuery(
    trpc.analytics.byGroup.queryOptions({ series: 'requests', start: day.start, end: day.end, granularity: day.granularity, groupBy: 'keyId' }, { refetchInterval: REFRESH_MS }),
  );
  const requests = useMemo(() => (usage.data ? new Map(usage.data.requests.map((g) => [g.keyId!, g.requests])) : undefined), [usage.data]);

  const [creating, setCreating] = useState(false);
  const [revealed, setRevealed] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<KeyItem | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.keys.list.pathKey() });
  const keys = list.data?.pages.flatMap((p) => p.data) ?? [];
  // The scopes the member's role may put on a key (docs/teams.md): the dialog offers these only.
  const me = account.data;
  const scopes = me?.scopes.filter((s) => (me.grantable as readonly string[]).includes(s.scope));
  const openCreate = () => setCreating(true);

  const createButton = (
    <Button onClick={openCreate} disabled={!scopes} data-testid="create-key">
      <span aria-hidden>+</span> Create key
    </Button>
  );

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">API keys</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Keys authenticate requests to the REST API as <code className="font-mono text-xs">Authorization: Bearer …</code>.{' '}
            {testMode ? 'You are viewing test keys: they only see test data and are never charged.' : 'You are viewing live keys.'}
          </p>
        </div>
        {keys.length > 0 && createButton}
      </div>

      {account.isError && <Alert>Could not load your workspace: {errorMessage(account.error)}</Alert>}

      <Card className="overflow-hidden">
        {list.isPending ? (
          <KeysSkeleton />
        ) : list.isError && keys.length === 0 ? (
          <div className="flex flex-col items-center gap-3 px-6 py-12 text-center" data-testid="keys-error">
            <p className="font-medium text-slate-900">Your keys could not be loaded.</p>
            <p className="text-sm text-slate-600">{errorMessage(list.error)}</p>
            <div className="flex gap-2">
              <Button variant="secondary" onClick={() => void list.refetch()}>
                Try again
              </Button>
              {apiErrorOf(list.error)?.code === 'unauthenticated' && <ButtonLink href="/signin">Sign in</ButtonLink>}
            </div>
          </div>
        ) : keys.length === 0 ? (
          <div className="flex flex-col items-center px-6 py-14 text-center" data-testid="keys-empty">
            <div aria-hidden className={`grid size-12 place-items-center rounded-full ${testMode ? 'bg-amber-100 text-amber-700' : 'bg-indigo-50 text-indigo-600'}`}>
              <KeyIcon />
            </div>
            <h2 className="mt-4 font-semibold text-slate-900">No {testMode ? 'test' : 'live'} keys yet</h2>
            <p className="mt-1 max-w-md text-sm text-slate-600">
              {testMode
                ? 'Test keys work against sandbox data only. Use them for development and CI.'
                : 'Create a key to call the API from your application. Each key has its own scopes and can be revoked at any time.'}
            </p>
            <div className="mt-5">{createButton}</div>
          </div>
        ) : (
          <>
            <KeysTable keys={keys} now={list.dataUpdatedAt} requests={requests} onRevoke={setRevoking} />
            <ListFooter list={list} />
          </>
        )}
      </Card>

      {creating && scopes && (
        <CreateKeyDialog
          scopes={scopes}
          environment={environment}
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setRevealed(key);
            void refresh();
          }}
        />
      )}
      {revealed && (
        <SecretModal
          created={revealed}
          calls={starterCalls}
          onDone={() => {
            setRevealed(null);
            // A key made for the other environment is listed there: show it.
            if (revealed.environment !== environment) setEnvironment(revealed.environment);
          }}
        />
      )}
      {revoking && (
        <RevokeDialog
          apiKey={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            setRevoking(null);
            void refresh();
          }}
        />
      )}
    </div>
  );
}
