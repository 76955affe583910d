'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { isClientFailure } from '@/app/_lib/errors';
import { ENVIRONMENT_COOKIE, ENVIRONMENT_HEADER, type DashboardEnvironment } from '@/app/_lib/environment';
import type { AppRouter } from '@/server/api/trpc/router';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

interface EnvironmentState {
  environment: DashboardEnvironment;
  setEnvironment: (environment: DashboardEnvironment) => void;
}

const EnvironmentContext = createContext<EnvironmentState | null>(null);

export function useEnvironment(): EnvironmentState {
  const state = useContext(EnvironmentContext);
  if (!state) throw new Error('useEnvironment() needs <Providers>');
  return state;
}

// Live and test data are separate worlds, so each environment gets its own tRPC client (which
// sends its `x-environment` header) and its own query cache: a response for one can never be
// shown in the other, even when a request is still in flight during a switch.
function makeClients(environment: DashboardEnvironment) {
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: { retry: (count, err) => !isClientFailure(err) && count < 2 },
      mutations: { retry: false },
    },
  });
  const trpcClient = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: '/api/trpc', maxItems: 10, headers: () => ({ [ENVIRONMENT_HEADER]: environment }) })],
  });
  return { queryClient, trpcClient };
}

function persist(environment: DashboardEnvironment) {
  document.cookie = `${ENVIRONMENT_COOKIE}=${environment}; path=/; max-age=31536000; samesite=lax`;
}

export function Providers({ initialEnvironment, children }: { initialEnvironment: DashboardEnvironment; children: ReactNode }) {
  const [environment, setState] = useState(initialEnvironment);
  const [clients] = useState(() => ({ live: makeClients('live'), test: makeClients('test') }));
  const setEnvironment = useCallback((next: DashboardEnvironment) => {
    persist(next);
    setState(next);
  }, []);
  const { queryClient, trpcClient } = clients[environment];

  return (
    <EnvironmentContext.Provider value={{ environment, setEnvironment }}>
      <QueryClientProvider client={queryClient} key={environment}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {children}
        </TRPCProvider>
      </QueryClientProvider>
    </EnvironmentContext.Provider>
  );
}
