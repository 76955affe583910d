import { formatDateTime } from '@/app/_lib/dates';
import type { Agent } from '@/app/_lib/types';
import { DetailRow } from '../detail-row';
import { IdText } from '../id-text';
import { Badge, Card, MetadataList } from '../ui';
import { ModelBadge } from './agents-table';

// What the agent is: its settings, tools and identifiers, beside the playground.

/** Which of a tool's calls wait for a person's approval, in words; null when none do. */
function approvalOf(tool: Agent['tools'][number]): string | null {
  if (tool.approval === 'never') return null;
  if (tool.approval === 'always') return 'Needs approval';
  return `Needs approval: ${tool.approval.tools.join(', ')}`;
}

/** A span of seconds in the largest whole unit that fits: "1 day", "2 hours", "90 minutes". */
function seconds(n: number): string {
  const [value, unit] = n % 86_400 === 0 ? [n / 86_400, 'day'] : n % 3600 === 0 ? [n / 3600, 'hour'] : n % 60 === 0 ? [n / 60, 'minute'] : [n, 'second'];
  return `${value.toLocaleString('en-US')} ${unit}${value === 1 ? '' : 's'}`;
}

export function AgentDetails({ agent }: { agent: Agent }) {
  const metadata = Object.entries(agent.metadata);
  return (
    <Card className="overflow-hidden" data-testid="agent-details">
      <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900 sm:px-5">Settings</h2>
      <dl className="divide-y divide-slate-100">
        <DetailRow label="Version" testId="agent-version">
          {agent.version === 0 ? (
            <span className="text-slate-500">None yet</span>
          ) : (
            <>
              <a href="#versions" className="font-medium text-indigo-600 hover:text-indigo-500">
                v{agent.version}
              </a>
              {agent.labels.production !== undefined && (
                <span className="block text-xs text-slate-500" data-testid="agent-production-version">
                  {agent.labels.production === agent.version ? 'The latest; production runs it' : `Production runs v${agent.labels.production}`}
                </span>
              )}
            </>
          )}
        </DetailRow>
        <DetailRow label="Model">
          <ModelBadge model={agent.model} />
        </DetailRow>
        <DetailRow label="Temperature">{agent.temperature ?? <span className="text-slate-500">Model default</span>}</DetailRow>
        <DetailRow label="Limits">
          {agent.maxSteps} steps, {agent.timeoutSeconds} s timeout
          {agent.maxTotalTokens !== null && <>, at most {agent.maxTotalTokens.toLocaleString('en-US')} tokens</>}
          {agent.tools.some((t) => t.approval !== 'never') && (
            <span className="block text-xs text-slate-500" data-testid="agent-approval-timeout">
              Calls awaiting approval expire after {seconds(agent.approvalTimeoutSeconds)}
            </span>
          )}
        </DetailRow>
        <DetailRow label="Instructions">
          {agent.instructions ? (
            <p className="line-clamp-6 whitespace-pre-wrap" title={agent.instructions}>
              {agent.instructions}
            </p>
          ) : (
            <span className="text-slate-500">None</span>
          )}
        </DetailRow>
        <DetailRow label="Tools">
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
                      {approvalOf(t) && (
                        <Badge tone="violet" className="max-w-full truncate" title={approvalOf(t)!} data-testid="agent-tool-approval">
                          {approvalOf(t)}
                        </Badge>
                      )}
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
        </DetailRow>
        <DetailRow label="Traces">
          <span data-testid="agent-trace-content" data-on={agent.traceContent}>
            {agent.traceContent ? 'Timings, tokens, cost and content' : 'Timings, tokens and cost'}
          </span>
          <span className="block text-xs text-slate-500">
            {agent.traceContent ? 'Messages, tool arguments and results are recorded on each run’s trace' : 'Messages, tool arguments and results are not recorded'}
          </span>
        </DetailRow>
        {metadata.length > 0 && (
          <DetailRow label="Metadata">
            <MetadataList metadata={agent.metadata} />
          </DetailRow>
        )}
        <DetailRow label="ID">
          <IdText value={agent.id} testId="agent-id" />
        </DetailRow>
        <DetailRow label="Created">
          <span data-testid="agent-created">{formatDateTime(agent.createdAt)}</span>
        </DetailRow>
        <DetailRow label="Updated">{formatDateTime(agent.updatedAt)}</DetailRow>
      </dl>
    </Card>
  );
}
