'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from './providers';

// The "Agent" filter of the workspace-wide lists (schedules, conversations): the environment's
// agents by name, and the names for the rows. An id from the address that is not among them
// (a deleted agent, or past the first 100) stays choosable as itself.

const SELECT =
  'block w-full rounded-md border-0 bg-white py-2 pr-8 pl-3 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

/** The agents' names by id (the first 100, as the executions list has them). */
export function useAgentNames(): ReadonlyMap<string, string> {
  const trpc = useTRPC();
  const agents = useQuery({ ...trpc.agents.list.queryOptions({ limit: 100 }), staleTime: 60_000 });
  return useMemo(() => new Map((agents.data?.data ?? []).map((a) => [a.id, a.name])), [agents.data]);
}

export function AgentFilter({ value, names, onChange }: { value: string | undefined; names: ReadonlyMap<string, string>; onChange: (agentId: string | undefined) => void }) {
  return (
    <div className="min-w-0 space-y-1 sm:w-64">
      <label htmlFor="filter-agent" className="block text-xs font-medium text-slate-600">
        Agent
      </label>
      <select id="filter-agent" className={SELECT} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)} data-testid="filter-agent">
        <option value="">All agents</option>
        {value && !names.has(value) && <option value={value}>{value}</option>}
        {[...names].map(([id, name]) => (
          <option key={id} value={id}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The agent of a row: its name, or its id when the name is unknown. */
export function AgentName({ id, names }: { id: string; names: ReadonlyMap<string, string> }) {
  const name = names.get(id);
  return name ? <span className="block truncate lg:max-w-48">{name}</span> : <code className="block truncate font-mono text-xs lg:max-w-48">{id}</code>;
}
