'use client';

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { CreatedWebhook } from '@/app/_lib/types';
import { TableSkeleton } from '../agents/agents-table';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';
import { EmptyState, ListFooter, LoadError, WebhookIcon } from '../states';
import { Button, ButtonLink, Card } from '../ui';
import { CreateWebhookDialog } from './create-webhook-dialog';
import { WebhookSecretModal } from './webhook-secret-modal';
import { WebhooksTable } from './webhooks-table';
import { useCan } from '../team/use-can';

const PAGE_SIZE = 20;

export function WebhooksView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const testMode = environment === 'test';

  // Paged by `after` like the keys list; the key sits under webhooks.list so invalidating it refreshes.
  const list = useInfiniteQuery({
    queryKey: [...trpc.webhooks.list.pathKey(), 'pages'],
    queryFn: ({ pageParam, signal }) =>
      client.webhooks.list.query(pageParam ? { limit: PAGE_SIZE, after: pageParam } : { limit: PAGE_SIZE }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });
  const webhooks = list.data?.pages.flatMap((p) => p.data) ?? [];

  const [creating, setCreating] = useState(false);
  const [revealed, setRevealed] = useState<CreatedWebhook | null>(null);

  // Webhooks are changed by admins and owners (docs/teams.md); others read them.
  const can = useCan();
  const addButton = (label: string) =>
    can.administer && (
      <Button onClick={() => setCreating(true)} data-testid="create-webhook">
        <span aria-hidden>+</span> {label}
      </Button>
    );

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Webhooks</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Endpoints of yours that receive events (an execution finished, an agent changed…) as signed{' '}
            <code className="font-mono text-xs">POST</code> requests, retried until they answer <code className="font-mono text-xs">2xx</code>.{' '}
            {testMode ? 'You are viewing test endpoints: they receive test-mode events only.' : 'You are viewing live endpoints.'}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink href="/dashboard/events" variant="secondary" data-testid="webhooks-events-link">
            Event log
          </ButtonLink>
          {webhooks.length > 0 && addButton('Add endpoint')}
        </div>
      </div>

      <Card className="overflow-hidden">
        {list.isPending ? (
          <TableSkeleton label="Loading webhooks" testId="webhooks-loading" />
        ) : list.isError && webhooks.length === 0 ? (
          <LoadError what="Your webhooks" error={list.error} onRetry={() => void list.refetch()} testId="webhooks-error" />
        ) : webhooks.length === 0 ? (
          <EmptyState
            icon={<WebhookIcon />}
            tone={testMode ? 'amber' : 'indigo'}
            title={`No ${testMode ? 'test' : 'live'} endpoints yet`}
            action={addButton('Add an endpoint')}
            testId="webhooks-empty"
          >
            Add the URL of your server and choose the events it should receive. Each request is signed, so your endpoint can check it comes from
            us.
          </EmptyState>
        ) : (
          <>
            <WebhooksTable webhooks={webhooks} />
            <ListFooter list={list} />
          </>
        )}
      </Card>

      {creating && (
        <CreateWebhookDialog
          environment={environment}
          onClose={() => setCreating(false)}
          onCreated={(webhook) => {
            setCreating(false);
            setRevealed(webhook);
            void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.pathKey() });
          }}
        />
      )}
      {revealed && (
        <WebhookSecretModal url={revealed.url} environment={revealed.environment} secret={revealed.secret} onDone={() => setRevealed(null)} />
      )}
    </div>
  );
}
