'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { apiErrorOf } from '@/app/_lib/errors';
import type { RotatedAgent } from '@/app/_lib/types';
import { useEnvironment, useTRPC } from '../providers';
import { AgentIcon, Breadcrumb, EmptyState, LoadError, PageSkeleton } from '../states';
import { Alert, Badge, Button, ButtonLink, Card } from '../ui';
import { AgentDetails } from './agent-details';
import { DeleteAgentDialog } from './delete-agent-dialog';
import { SchedulesCard } from '../schedules/schedules-card';
import { OnlineScoringCard } from './online-scoring-card';
import { Playground } from './playground';
import { useUnreachableProvider } from './provider-status';
import { RotateToolSecretDialog } from './rotate-tool-secret-dialog';
import { ToolSecretModal } from './tool-secret-modal';
import { VersionsCard } from './versions-card';
import { useCan } from '../team/use-can';
import { ENVIRONMENT_WORDS } from '@/app/_lib/words';

export function AgentView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const agent = useQuery(trpc.agents.get.queryOptions({ id }));
  const unreachable = useUnreachableProvider();
  const can = useCan();
  const [dialog, setDialog] = useState<'rotate' | 'delete' | null>(null);
  const [rotated, setRotated] = useState<RotatedAgent | null>(null);

  if (agent.isPending) return <PageSkeleton label="Loading the agent" testId="agent-loading" />;
  if (agent.isError) {
    const missing = apiErrorOf(agent.error)?.code === 'resource_not_found';
    return (
      <div className="space-y-6">
        <Breadcrumb href="/dashboard/agents" parent="Agents" current={id} />
        <Card>
          {missing ? (
            <EmptyState
              icon={<AgentIcon />}
              title="No such agent here"
              action={<ButtonLink href="/dashboard/agents">Back to agents</ButtonLink>}
              testId="agent-not-found"
            >
              It was deleted, or it belongs to {environment === 'test' ? 'live' : 'test'} mode: agents of one environment are not visible from the other.
            </EmptyState>
          ) : (
            <LoadError what="This agent" error={agent.error} onRetry={() => void agent.refetch()} testId="agent-error" />
          )}
        </Card>
      </div>
    );
  }

  const a = agent.data;
  // Runs on a provider this server cannot call fail at once: say so before the user tries (test mode runs on the sandbox).
  const unavailable = unreachable(a);
  // The tool secret signs HTTP tool calls only (MCP servers get their own headers): nothing to rotate without one.
  const signsToolCalls = a.tools.some((t) => t.type === 'http');
  return (
    <div className="space-y-6">
      <Breadcrumb href="/dashboard/agents" parent="Agents" current={a.name} />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="flex flex-wrap items-center gap-x-3 gap-y-1 text-2xl font-semibold tracking-tight break-words text-slate-900" data-testid="agent-name">
            <span className="min-w-0">{a.name}</span>
            <Badge tone={a.environment === 'test' ? 'amber' : 'green'}>{ENVIRONMENT_WORDS[a.environment]}</Badge>
          </h1>
          {a.description && <p className="mt-1 max-w-2xl text-sm break-words text-slate-600">{a.description}</p>}
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink href={`/dashboard/executions?agentId=${a.id}`} variant="secondary" data-testid="agent-executions">
            Executions
          </ButtonLink>
          {can.build && (
            <>
              <ButtonLink href={`/dashboard/agents/${a.id}/edit`} variant="secondary" data-testid="edit-agent">
                Edit
              </ButtonLink>
              {signsToolCalls && (
                <Button variant="secondary" onClick={() => setDialog('rotate')} data-testid="rotate-tool-secret">
                  Rotate tool secret
                </Button>
              )}
              <Button variant="dangerGhost" onClick={() => setDialog('delete')} data-testid="delete-agent">
                Delete
              </Button>
            </>
          )}
        </div>
      </div>

      {unavailable && (
        <Alert tone="amber" data-testid="provider-warning">
          The <strong className="font-semibold">{unavailable.id}</strong> provider is not configured on this server, so runs of this agent fail with{' '}
          <code className="font-mono text-xs">model_provider_unavailable</code>. Set <code className="font-mono text-xs">{unavailable.enabledBy}</code>{' '}
          on the server, or choose another model.
        </Alert>
      )}

      <div className="grid items-start gap-6 lg:grid-cols-3">
        <div className="min-w-0 lg:col-span-2">
          {can.role === 'viewer' ? (
            <Card className="px-5 py-8 text-center text-sm text-slate-600" data-testid="playground-refused">
              <p className="font-medium text-slate-900">The playground runs the agent</p>
              <p className="mt-1">Your role (viewer) reads only: developers, admins and owners run agents here.</p>
            </Card>
          ) : (
            <Playground agentId={a.id} agentName={a.name} hasTools={a.tools.length > 0} />
          )}
        </div>
        <AgentDetails agent={a} />
      </div>

      <VersionsCard agent={a} />

      <OnlineScoringCard agentId={a.id} />

      <SchedulesCard agentId={a.id} />

      {dialog === 'rotate' && (
        <RotateToolSecretDialog
          agent={a}
          onClose={() => setDialog(null)}
          onRotated={(r) => {
            setDialog(null);
            setRotated(r);
            void queryClient.invalidateQueries({ queryKey: trpc.agents.get.queryKey({ id: a.id }) });
          }}
        />
      )}
      {rotated && <ToolSecretModal agentName={rotated.name} secret={rotated.toolSecret} previousExpiresAt={rotated.previousToolSecretExpiresAt} onDone={() => setRotated(null)} />}
      {dialog === 'delete' && (
        <DeleteAgentDialog
          agent={a}
          onClose={() => setDialog(null)}
          onDeleted={() => {
            void queryClient.invalidateQueries({ queryKey: trpc.agents.list.pathKey() });
            void queryClient.invalidateQueries({ queryKey: trpc.executions.pathKey() });
            router.push('/dashboard/agents');
          }}
        />
      )}
    </div>
  );
}
