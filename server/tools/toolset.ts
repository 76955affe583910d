import { jsonSchema, tool, type ToolSet } from 'ai';
import type { agents } from '../../db/schema';
import { env } from '../env.js';
import { callHttpTool } from './http-tool';
import { SCHEMA_BUDGET_MS, validateArguments } from './schema-pool';

// The tools a run offers the model: the agent's HTTP tools, each call signed and sent by
// callHttpTool. Before a call, what a model can make us do is bounded (docs/executions.md,
// "Tool calls: what a model can make us do"):
// - its arguments must match the tool's `parameters` (checked in the schema pool's threads).
// Every refusal, like every failed call, goes back to the model as the tool's result
// `{error}`: it may retry or explain, and the run records it as a tool error.

type AgentRow = typeof agents.$inferSelect;

/** The secrets that sign a call now: the agent's, and the one it replaced while in its 24 h. */
export function activeToolSecrets(agent: Pick<AgentRow, 'toolSecret' | 'previousToolSecret' | 'previousToolSecretExpiresAt'>, now = new Date()): string[] {
  const previous = agent.previousToolSecret && agent.previousToolSecretExpiresAt && agent.previousToolSecretExpiresAt > now ? [agent.previousToolSecret] : [];
  return [agent.toolSecret, ...previous];
}

const refused = (error: string) => ({ error });

/** The agent's tools for one execution. */
export function buildTools(agent: AgentRow, executionId: string, signal: AbortSignal): ToolSet {
  const tools: ToolSet = {};
  for (const spec of agent.tools) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (args: unknown, options) => {
        const check = await validateArguments(agent.workspaceId, spec.parameters, args, signal);
        if (!check.ok) {
          if (check.reason === 'invalid') return refused(`Not called: the arguments do not match the tool's parameters: ${check.message}`);
          if (check.reason === 'too_slow') return refused(`Not called: the arguments could not be checked against the tool's parameters within ${SCHEMA_BUDGET_MS / 1000} s`);
          return refused('Not called: the server is busy checking tool arguments; try again');
        }

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
