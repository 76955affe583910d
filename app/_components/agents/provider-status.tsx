'use client';

import { useQuery } from '@tanstack/react-query';
import type { ModelProvider } from '@/app/_lib/types';
import { useTRPC } from '../providers';
import { Badge, cx } from '../ui';

// Whether an agent's runs can reach its model: the server answers which providers it has
// credentials for (models.providers). A live agent on one it has none for fails every run with
// `model_provider_unavailable`; a test agent runs on the sandbox anyway, unless the server lets
// test mode use real providers.

interface AgentModel {
  model: string;
  environment: 'live' | 'test';
}

/** For an agent, the provider its runs cannot reach, or null (also while the answer is loading). */
export function useUnreachableProvider(): (agent: AgentModel) => ModelProvider | null {
  const trpc = useTRPC();
  const providers = useQuery({ ...trpc.models.providers.queryOptions(), staleTime: 5 * 60_000 });
  return (agent) => {
    const data = providers.data;
    const provider = data?.providers.find((p) => p.id === agent.model.split('/')[0]);
    if (!data || !provider || provider.configured) return null;
    return agent.environment === 'live' || data.testModeRealModels ? provider : null;
  };
}

/** "Provider not configured" under an agent's model, when its runs cannot reach it; nothing otherwise. */
export function ProviderWarning({ agent, className }: { agent: AgentModel; className?: string }) {
  const provider = useUnreachableProvider()(agent);
  if (!provider) return null;
  return (
    <span className={cx('block', className)}>
      <Badge
        tone="amber"
        title={`This server has no credentials for ${provider.id}${provider.enabledBy ? ` (${provider.enabledBy} is not set)` : ''}: runs of this agent fail with model_provider_unavailable.`}
        data-testid="provider-not-configured"
      >
        <span aria-hidden className="mr-1">⚠</span>
        Provider not configured
      </Badge>
    </span>
  );
}
