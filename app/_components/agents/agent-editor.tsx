'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { CreatedAgent } from '@/app/_lib/types';
import { useEnvironment, useTRPC } from '../providers';
import { Breadcrumb, LoadError } from '../states';
import { Card } from '../ui';
import { draftOf, emptyDraft } from './agent-draft';
import { AgentForm } from './agent-form';
import { ToolSecretModal } from './tool-secret-modal';

function Heading({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div>
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
      <p className="mt-1 max-w-2xl text-sm text-slate-600">{children}</p>
    </div>
  );
}

export function NewAgentView() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  // gcTime 0: the response (which holds the tool secret) leaves the mutation cache with this page.
  const create = useMutation({ ...trpc.agents.create.mutationOptions(), gcTime: 0 });
  const [created, setCreated] = useState<CreatedAgent | null>(null);
  const [leaving, setLeaving] = useState(false);

  return (
    <div className="space-y-6">
      <Breadcrumb href="/dashboard/agents" parent="Agents" current="New agent" />
      <Heading title="New agent">
        It is created in {environment === 'test' ? 'test mode: only test keys see it, and its runs use the sandbox model' : 'live mode'}. You can change
        everything later.
      </Heading>
      <AgentForm
        initial={emptyDraft()}
        submitLabel="Create agent"
        cancelHref="/dashboard/agents"
        pending={create.isPending || created !== null || leaving}
        onSubmit={async (input) => {
          const agent = await create.mutateAsync(input);
          void queryClient.invalidateQueries({ queryKey: trpc.agents.list.pathKey() });
          // The tool secret only matters to HTTP tools, which verify its signatures: an agent
          // without any (MCP servers do not see it) goes straight to its page (it has a secret
          // all the same; "Rotate tool secret" there shows a new one once tools are added).
          if (agent.tools.some((t) => t.type === 'http')) {
            setCreated(agent);
          } else {
            setLeaving(true);
            router.push(`/dashboard/agents/${agent.id}`);
          }
        }}
      />
      {created && <ToolSecretModal agentName={created.name} secret={created.toolSecret} onDone={() => router.push(`/dashboard/agents/${created.id}`)} />}
    </div>
  );
}

export function EditAgentView({ id }: { id: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const agent = useQuery({ ...trpc.agents.get.queryOptions({ id }), staleTime: Infinity });
  const update = useMutation(trpc.agents.update.mutationOptions());
  const href = `/dashboard/agents/${id}`;

  return (
    <div className="space-y-6">
      <Breadcrumb href="/dashboard/agents" parent="Agents" current={agent.data?.name ?? id} />
      <Heading title="Edit agent">
        Changes apply to the next run; runs already started keep the settings they started with. A change of behaviour makes a new version of the agent.
      </Heading>
      {agent.isPending ? (
        <Card className="h-96 animate-pulse" aria-busy="true" aria-label="Loading the agent" />
      ) : agent.isError ? (
        <Card>
          <LoadError what="This agent" error={agent.error} onRetry={() => void agent.refetch()} testId="agent-error" />
        </Card>
      ) : (
        <AgentForm
          initial={draftOf(agent.data)}
          submitLabel="Save changes"
          cancelHref={href}
          pending={update.isPending}
          versions={{ latest: agent.data.version, production: agent.data.labels.production }}
          onSubmit={async (input, versionNote) => {
            await update.mutateAsync({ id, ...input, ...(versionNote ? { versionNote } : {}) });
            await queryClient.invalidateQueries({ queryKey: trpc.agents.pathKey() });
            router.push(href);
          }}
        />
      )}
    </div>
  );
}
