'use client';

import { useQuery } from '@tanstack/react-query';
import { sortedLabels } from '@/app/_lib/versions';
import type { AgentItem } from '@/app/_lib/types';
import { useTRPC } from '../providers';
import { SelectField } from '../ui';

// The agent an experiment runs and which of its versions: a label (where it points now: it is
// resolved once, when the experiment is made; `production` by default) or a version by number,
// newest first, as the agent's Versions card lists them.

const VERSIONS_LIMIT = 100;

/** The version select's value: `label:<name>` or `version:<n>`. */
export type VersionChoice = `label:${string}` | `version:${number}`;
export const DEFAULT_VERSION: VersionChoice = 'label:production';

/** What the create call takes for a choice. */
export function versionInput(choice: VersionChoice): { label: string } | { version: number } {
  return choice.startsWith('label:') ? { label: choice.slice(6) } : { version: Number(choice.slice(8)) };
}

export function AgentVersionFields({
  agents,
  agentId,
  version,
  onAgent,
  onVersion,
  agentError,
  versionError,
}: {
  agents: AgentItem[];
  agentId: string;
  version: VersionChoice;
  onAgent: (id: string) => void;
  onVersion: (v: VersionChoice) => void;
  agentError: string | null;
  versionError: string | null;
}) {
  const trpc = useTRPC();
  const agent = agents.find((a) => a.id === agentId);
  const versions = useQuery({ ...trpc.agents.versions.queryOptions({ id: agentId, limit: VERSIONS_LIMIT }), enabled: agentId !== '', staleTime: 10_000 });
  const list = versions.data?.data ?? [];
  const labels = agent ? sortedLabels(agent.labels) : [];

  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <SelectField
        id="exp-agent"
        label="Agent"
        value={agentId}
        onChange={(e) => {
          onAgent(e.target.value);
          onVersion(DEFAULT_VERSION);
        }}
        error={agentError}
        data-testid="exp-agent"
      >
        {agentId === '' && <option value="">Choose an agent…</option>}
        {agents.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </SelectField>
      <SelectField
        id="exp-version"
        label="Version"
        value={version}
        onChange={(e) => onVersion(e.target.value as VersionChoice)}
        disabled={!agent}
        hint={versions.isError ? 'Its versions could not be loaded: choose a label.' : 'A label is resolved to its version when the experiment starts.'}
        error={versionError}
        data-testid="exp-version"
      >
        {labels.length === 0 && <option value={DEFAULT_VERSION}>production</option>}
        {labels.length > 0 && (
          <optgroup label="Labels">
            {labels.map(([l, v]) => (
              <option key={l} value={`label:${l}`}>
                {l} (v{v})
              </option>
            ))}
          </optgroup>
        )}
        {list.length > 0 && (
          <optgroup label="Versions">
            {list.map((v) => (
              <option key={v.version} value={`version:${v.version}`}>
                v{v.version}
                {v.version === agent?.version ? ' (latest)' : ''}
                {v.note ? ` · ${v.note.length > 40 ? `${v.note.slice(0, 40)}…` : v.note}` : ''}
              </option>
            ))}
          </optgroup>
        )}
      </SelectField>
    </div>
  );
}
