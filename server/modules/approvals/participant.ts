import type { agents } from '../../../db/schema';
import type { OfferedTool, RunParticipant, RunPart } from '../vocabulary/participants';

// Approvals as a run participant (docs/approvals.md; the contract: vocabulary/participants.ts):
// which of a run's tool calls wait for a person's decision, read from the agent's policies — an
// HTTP tool's `approval: "always"`, an MCP server's `"always"` or `{tools: [...]}` (the tools as
// the server lists them). The engine pauses the run after such a call's step and never names a
// policy; the pause itself (a status move), the decisions and their expiry are the lifecycle's
// (executions/pause.ts, executions/approvals.ts).

type AgentTool = (typeof agents.$inferSelect)['tools'][number];

/** Whether the agent's policy holds calls of this offered tool for a decision. */
function held(spec: AgentTool | undefined, tool: OfferedTool): boolean {
  const policy = spec?.approval ?? 'never';
  if (policy === 'always') return true;
  return typeof policy === 'object' && tool.mcpTool !== undefined && policy.tools.includes(tool.mcpTool);
}

export const approvalsParticipant: RunParticipant = {
  name: 'approvals',
  run({ row, agent, tools }): RunPart | undefined {
    // A replay answering its tools from the record calls none: nothing to decide.
    if (row.replay?.tools === 'recorded') return undefined;
    const specs = new Map(agent.tools.map((t) => [t.name, t]));
    const holding = new Map<string, Record<string, unknown>>();
    for (const [name, tool] of tools) if (held(specs.get(tool.source), tool)) holding.set(name, tool.parameters);
    if (holding.size === 0) return undefined;
    return { holds: (tool) => holding.get(tool) };
  },
};
