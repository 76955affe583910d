import { jsonSchema, tool, type ToolSet } from 'ai';
import type { agents } from '../../db/schema';
import { env } from '../env.js';
import { callHttpTool } from './http-tool';

// The tools a run offers the model: the agent's HTTP tools, each call signed and sent by
// callHttpTool. A failed call goes back to the model as its result (it may retry or explain).

type AgentRow = typeof agents.$inferSelect;

/** The secrets that sign a call now: the agent's, and the one it replaced while in its 24 h. */
export function activeToolSecrets(agent: Pick<AgentRow, 'toolSecret' | 'previousToolSecret' | 'previousToolSecretExpiresAt'>, now = new Date()): string[] {
  const previous = agent.previousToolSecret && agent.previousToolSecretExpiresAt && agent.previousToolSecretExpiresAt > now ? [agent.previousToolSecret] : [];
  return [agent.toolSecret, ...previous];
}

export function buildTools(agent: AgentRow, executionId: string, signal: AbortSignal): ToolSet {
  const tools: ToolSet = {};
  for (const spec of agent.tools) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (args: unknown, options) => {
        const result = await callHttpTool(spec, args, {
          secrets: activeToolSecrets(agent),
          callId: `${executionId}_${options.toolCallId}`,
          signal,
          allowPrivate: env.WEBHOOK_ALLOW_PRIVATE_URLS,
        });
        // A failed call goes back to the model as its result: it may retry or explain.
        return result.ok ? { status: result.status, body: result.body, ...(result.truncated ? { truncated: true } : {}) } : { error: result.error, status: result.status };
      },
    });
  }
  return tools;
}
