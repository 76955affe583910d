import type { ReactNode } from 'react';
import { formatDate } from '@/app/_lib/format';
import type { Agent } from '@/app/_lib/types';
import { Badge, Card, MetadataList } from '../ui';
import { ModelBadge } from './agents-table';

// What the agent is: its settings, tools and identifiers, beside the playground.

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-3 gap-3 px-4 py-3 sm:px-5">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="col-span-2 min-w-0 text-sm break-words text-slate-800">{children}</dd>
    </div>
  );
}

export function AgentDetails({ agent }: { agent: Agent }) {
  const metadata = Object.entries(agent.metadata);
  return (
    <Card className="overflow-hidden" data-testid="agent-details">
      <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Settings</h2>
      <dl className="divide-y divide-slate-100">
        <Row label="Model">
          <ModelBadge model={agent.model} />
        </Row>
        <Row label="Temperature">{agent.temperature ?? <span className="text-slate-500">Model default</span>}</Row>
        <Row label="Limits">
          {agent.maxSteps} steps, {agent.timeoutSeconds} s timeout
        </Row>
        <Row label="Instructions">
          {agent.instructions ? (
            <p className="line-clamp-6 whitespace-pre-wrap" title={agent.instructions}>
              {agent.instructions}
            </p>
          ) : (
            <span className="text-slate-500">None</span>
          )}
        </Row>
        <Row label="Tools">
          {agent.tools.length === 0 ? (
            <span className="text-slate-500">None</span>
          ) : (
            <div className="space-y-2">
              <ul className="space-y-2">
                {agent.tools.map((t) => (
                  <li key={t.name} className="min-w-0" data-testid="agent-tool">
                    <p className="flex flex-wrap items-center gap-1.5">
                      <code className="font-mono text-xs font-semibold">{t.name}</code>
                      <Badge className="font-mono">{t.type === 'mcp' ? 'MCP' : t.method}</Badge>
                    </p>
                    <p className="truncate font-mono text-xs text-slate-500" title={t.url}>
                      {t.url}
                    </p>
                    {t.type === 'mcp' && (
                      <p className="text-xs text-slate-500" data-testid="agent-mcp-tool">
                        {t.allowedTools ? `Tools: ${t.allowedTools.join(', ')}` : 'Every tool the server lists'}
                        {/* Header values are write-only: their names only, and that they are set. */}
                        {Object.keys(t.headers).length > 0 && ` · Headers (set): ${Object.keys(t.headers).join(', ')}`}
                      </p>
                    )}
                  </li>
                ))}
              </ul>
              {agent.tools.some((t) => t.type === 'http') && (
                <p className="text-xs text-slate-500" data-testid="tool-signing-note">
                  HTTP tool calls are signed with this agent’s tool secret, so your endpoints can check they come from this service.{' '}
                  <span className="font-medium text-slate-700">Rotate tool secret</span> shows a new one (say, for tools added after creation).
                </p>
              )}
            </div>
          )}
        </Row>
        {metadata.length > 0 && (
          <Row label="Metadata">
            <MetadataList metadata={agent.metadata} />
          </Row>
        )}
        <Row label="ID">
          <code className="font-mono text-xs break-all" data-testid="agent-id">
            {agent.id}
          </code>
        </Row>
        <Row label="Created">{formatDate(agent.createdAt)}</Row>
        <Row label="Updated">{formatDate(agent.updatedAt)}</Row>
      </dl>
    </Card>
  );
}
