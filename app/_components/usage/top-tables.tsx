import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatCount, formatDuration } from '@/app/_lib/format';
import type { NamedAgent, NamedKey } from '@/app/_lib/usage-csv';
import { errorsOf, failureRate, formatPercent, formatUsd } from '@/app/_lib/usage';
import { Badge, Card } from '../ui';
import { CardHeader } from './chart-card';
import { DataTable, type TableColumn } from './data-table';

// The top agents and top keys of the range, largest first: tables, and a card per row below lg.

function TopCard({ title, description, csv, testId, children }: { title: string; description: ReactNode; csv: (() => void) | null; testId: string; children: ReactNode }) {
  return (
    <Card className="min-w-0 overflow-hidden" data-testid={testId}>
      <div className="px-4 pt-4 pb-3 sm:px-5">
        <CardHeader title={title} description={description} csv={csv} testId={testId} />
      </div>
      {children}
    </Card>
  );
}

const Empty = ({ children }: { children: ReactNode }) => <p className="border-t border-slate-100 px-5 py-8 text-center text-sm text-slate-500">{children}</p>;

const AGENT_COLUMNS: TableColumn[] = [
  { label: 'Agent' },
  { label: 'Executions', numeric: true },
  { label: 'Failure rate', numeric: true },
  { label: 'Tokens', numeric: true },
  { label: 'Estimated cost', numeric: true },
  { label: 'p95', numeric: true },
];

function AgentName({ agent }: { agent: NamedAgent }) {
  const id = <code className="block font-mono text-xs font-normal text-slate-500">{agent.id}</code>;
  if (agent.deleted) {
    return (
      <span className="block">
        <Badge data-testid="agent-deleted">Deleted</Badge>
        {id}
      </span>
    );
  }
  return (
    <Link href={`/dashboard/agents/${agent.id}`} className="group block max-w-64">
      {agent.name !== null && <span className="block truncate text-indigo-600 group-hover:text-indigo-500">{agent.name}</span>}
      {id}
    </Link>
  );
}

export function TopAgents({ agents, total, csv }: { agents: NamedAgent[]; total: number; csv: (() => void) | null }) {
  return (
    <TopCard
      title="Top agents"
      description={total > agents.length ? `The ${agents.length} agents with the most executions (of ${total}).` : 'Agents by executions that ended in this range.'}
      csv={csv}
      testId="top-agents"
    >
      {agents.length === 0 ? (
        <Empty>No executions ended in this range.</Empty>
      ) : (
        <DataTable
          caption="Top agents"
          columns={AGENT_COLUMNS}
          cards
          testId="top-agents-table"
          rows={agents.map((a) => ({
            key: a.id,
            cells: [
              <AgentName key="name" agent={a} />,
              formatCount(a.executions),
              formatPercent(failureRate(a)),
              formatCount(a.totalTokens),
              formatUsd(a.costUsd),
              a.p95 === null ? '—' : formatDuration(a.p95),
            ],
          }))}
        />
      )}
    </TopCard>
  );
}

const KEY_COLUMNS: TableColumn[] = [
  { label: 'Key' },
  { label: 'Requests', numeric: true },
  { label: 'Errors', numeric: true },
  { label: '429s', numeric: true },
  { label: '401s', numeric: true },
];

function KeyName({ apiKey }: { apiKey: NamedKey }) {
  return (
    <span className="block max-w-64">
      {apiKey.name !== null && <span className="block truncate text-slate-900">{apiKey.name}</span>}
      {apiKey.revoked && <Badge data-testid="key-revoked">Revoked</Badge>}
      <code className="block font-mono text-xs font-normal text-slate-500">{apiKey.id}</code>
    </span>
  );
}

export function TopKeys({ keys, total, csv }: { keys: NamedKey[]; total: number; csv: (() => void) | null }) {
  return (
    <TopCard
      title="Top keys"
      description={
        total > keys.length ? `The ${keys.length} keys with the most requests (of ${total}).` : 'Keys by API requests in this range. Errors are every 4xx and 5xx answer, 429s and 401s included.'
      }
      csv={csv}
      testId="top-keys"
    >
      {keys.length === 0 ? (
        <Empty>No API requests were made with this environment’s keys in this range.</Empty>
      ) : (
        <DataTable
          caption="Top keys"
          columns={KEY_COLUMNS}
          cards
          testId="top-keys-table"
          rows={keys.map((k) => ({
            key: k.id,
            cells: [<KeyName key="name" apiKey={k} />, formatCount(k.requests), formatCount(errorsOf(k)), formatCount(k.rateLimited), formatCount(k.unauthorized)],
          }))}
        />
      )}
    </TopCard>
  );
}
