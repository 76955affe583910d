'use client';

import Link from 'next/link';
import type { Budget } from '@/app/_lib/types';
import { IdText } from '../id-text';

// What a budget counts, in words: the workspace, an agent (linked to its page) or a key, named
// from the environment's lists. An id missing from a complete list is a deleted agent or a
// revoked key (the budget stays, counting nothing new); while the lists load, the id.

interface NameList {
  names: Map<string, { name: string }>;
  complete: boolean;
}

export interface Names {
  agents: NameList | undefined;
  keys: NameList | undefined;
}

export function TargetLabel({ target, names, plain = false }: { target: Budget['target']; names: Names; plain?: boolean }) {
  if (target.type === 'workspace') return <span data-testid="budget-target">the whole workspace</span>;
  const list = target.type === 'agent' ? names.agents : names.keys;
  const known = list?.names.get(target.id);
  const noun = target.type === 'agent' ? 'agent' : 'key';
  if (known) {
    return (
      <span className="break-words" data-testid="budget-target">
        {noun}{' '}
        {target.type === 'agent' && !plain ? (
          <Link href={`/dashboard/agents/${target.id}`} className="font-medium text-indigo-600 hover:text-indigo-500">
            {known.name}
          </Link>
        ) : (
          <span className="font-medium">{known.name}</span>
        )}
      </span>
    );
  }
  return (
    <span className="inline-flex max-w-full min-w-0 items-center gap-1 align-middle" data-testid="budget-target">
      <span className="shrink-0">{list?.complete ? (target.type === 'agent' ? 'a deleted agent' : 'a revoked key') : noun}</span>
      <IdText value={target.id} copy={false} className="min-w-0" />
    </span>
  );
}
