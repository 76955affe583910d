import type { Metadata } from 'next';
import { KeysView } from '@/app/_components/keys/keys-view';
import type { StarterCall } from '@/app/_lib/types';
import { buildRouteTable } from '@/server/api/rest/routes';
import { appRouter } from '@/server/api/trpc/router';

export const metadata: Metadata = { title: 'API keys' };

// What the "save your key" modal suggests trying: keyed GETs (they need a scope) without path
// parameters, from the route table /v1 serves, so the suggestion follows the API as it grows.
function starterCalls(): StarterCall[] {
  return buildRouteTable(appRouter).flatMap((r) =>
    r.method === 'GET' && r.scope && !r.template.includes('{') ? [{ path: r.template, scope: r.scope }] : [],
  );
}

export default function KeysPage() {
  return <KeysView starterCalls={starterCalls()} />;
}
