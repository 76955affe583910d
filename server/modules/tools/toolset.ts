import { jsonSchema, tool, type ToolSet } from 'ai';
import type { agents } from '../../../db/schema';
import { allowPrivateUrls } from '../../platform/net/private-urls';
import { callHttpTool } from './http-tool';
import { SCHEMA_BUDGET_MS, validateArguments } from './schema-pool';

// The tools a run offers the model: the agent's HTTP tools, each call signed and sent by
// callHttpTool. Before a call, what a model can make us do is bounded (docs/executions.md,
// "Tool calls: what a model can make us do"):
// - its arguments must match the tool's `parameters` (checked in the schema pool's threads);
// - at most MAX_TOOL_CALLS_PER_STEP calls are made per step, the rest refused;
// - at most TOOL_RESULT_BUDGET_BYTES of tool results are handed to the model per execution.
// Every refusal, like every failed call, goes back to the model as the tool's result
// `{error}`: it may retry or explain, and the run records it as a tool error.

type AgentRow = typeof agents.$inferSelect;

/**
 * Calls made in one step. Models ask for a handful at once; 10 covers real fan-outs (look up a
 * few orders, a few cities) while a model asking for 200 in one step (20 MB of answers, +500
 * MB of memory) gets 10 calls made and 190 refusals.
 */
export const MAX_TOOL_CALLS_PER_STEP = 10;
/** Bytes of tool results (as JSON) handed to the model in one execution: ten full 100 KB answers. */
export const TOOL_RESULT_BUDGET_BYTES = 1024 * 1024;

/** The secrets that sign a call now: the agent's, and the one it replaced while in its 24 h. */
export function activeToolSecrets(agent: Pick<AgentRow, 'toolSecret' | 'previousToolSecret' | 'previousToolSecretExpiresAt'>, now = new Date()): string[] {
  const previous = agent.previousToolSecret && agent.previousToolSecretExpiresAt && agent.previousToolSecretExpiresAt > now ? [agent.previousToolSecret] : [];
  return [agent.toolSecret, ...previous];
}

const refused = (error: string) => ({ error });
const BUDGET = `this execution's budget of tool results (${TOOL_RESULT_BUDGET_BYTES / 1024 / 1024} MiB handed to the model)`;

/** The agent's tools for one execution: call it once per run (the step count and the byte budget are the run's). */
export function buildTools(agent: AgentRow, executionId: string, signal: AbortSignal): ToolSet {
  // The AI SDK runs a step's calls together, each with the messages the step was sent: their
  // count tells the steps apart (each step adds the previous one's answer to them).
  const callsInStep = new Map<number, number>();
  let resultBytes = 0;
  const tools: ToolSet = {};
  for (const spec of agent.tools) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (args: unknown, options) => {
        // Counted before anything is awaited: the first calls of the step, in the model's order, are the ones made.
        const step = options.messages.length;
        const nth = (callsInStep.get(step) ?? 0) + 1;
        callsInStep.set(step, nth);
        if (nth > MAX_TOOL_CALLS_PER_STEP) {
          return refused(`Not called: at most ${MAX_TOOL_CALLS_PER_STEP} tool calls are made in one step, and this step asked for more. Call fewer tools at once.`);
        }
        if (resultBytes >= TOOL_RESULT_BUDGET_BYTES) return refused(`Not called: ${BUDGET} is spent`);

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
          allowPrivate: allowPrivateUrls(),
        });
        // A failed call goes back to the model as its result: it may retry or explain.
        const output = result.ok ? { status: result.status, body: result.body, ...(result.truncated ? { truncated: true } : {}) } : { error: result.error, status: result.status };
        const bytes = Buffer.byteLength(JSON.stringify(output));
        if (resultBytes + bytes > TOOL_RESULT_BUDGET_BYTES) {
          resultBytes = TOOL_RESULT_BUDGET_BYTES; // spent: later calls are not made
          return refused(`The tool answered, but its result (${bytes} bytes) would pass ${BUDGET}, so it is not handed over; no more tools are called`);
        }
        resultBytes += bytes;
        return output;
      },
    });
  }
  return tools;
}
