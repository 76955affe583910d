import { tool as defineTool, type ToolSet } from 'ai';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { messages, type ReplayPlan, type StoredStep } from '../../../db/schema';
import type { Actor } from '../actor';
import { canonicalJson } from '../../platform/canonical-json';
import { ApiError, notFound } from '../../platform/errors';
import { parseModel, PROVIDERS } from '../models/registry';
import { isFinal } from '../vocabulary/statuses';
import type { ExecuteInput, ReplayInput } from './schemas';
import { findExecution } from './service';

// Replay (docs/traces.md, "Replay"): a new execution of the original's agent that takes the
// original's steps before `fromStep` as recorded (no model call, no tool call, no cost) and runs
// live from there, with the caller's overrides. With `tools: "recorded"` no tool is ever called:
// a call equal to one the original made (tool and canonical JSON of its arguments) is answered
// with the recorded result, any other with `{"error":"not_recorded"}`. The plan is copied onto
// the replay's row when it is created: its run reads nothing of the original, and the original
// (its row, its conversation) is never written.

/** What a replay starts with: its plan, the conversation before the original's turn, its input and model. */
export interface ReplayStart {
  plan: ReplayPlan;
  /** The messages the original's model saw before its own turn (copied into the replay's new conversation). */
  history: { role: 'user' | 'assistant' | 'tool'; content: string; modelMessage: unknown; executionId: string }[];
  /** The model it runs (the override, or the original's). */
  model: string;
  /** The version of the agent it runs: the original's (null: a run from before versions, the production one). */
  version: number | null;
}

/** What the answer to a call the original never made says (never a side effect). */
export const NOT_RECORDED = { error: 'not_recorded' } as const;

/** Reads the original and plans its replay; 404 unknown, 409 `execution_not_final`, 400 `fromStep` past its steps or a bad model. */
export async function planReplay(db: Db, scope: Pick<Actor, 'workspaceId' | 'environment'>, id: string, input: ReplayInput): Promise<{ agentId: string; input: ExecuteInput; replay: ReplayStart }> {
  const original = await findExecution(db, scope, id);
  if (!original) throw notFound('execution', id);
  if (!isFinal(original.status)) {
    throw new ApiError('execution_not_final', `This execution is '${original.status}': it can be replayed once it has finished`);
  }
  const steps = original.steps;
  if (input.fromStep > 0 && input.fromStep >= steps.length) {
    const last = steps.length === 0 ? "it has no steps: only 0 is allowed" : `its steps are 0–${steps.length - 1}`;
    throw new ApiError('invalid_parameter', `'fromStep' is beyond the execution's steps (${last})`, { param: 'fromStep' });
  }
  if (input.model !== undefined && !parseModel(input.model)) {
    throw new ApiError('invalid_parameter', `'model' must be 'provider/model' with a provider among ${PROVIDERS.join(', ')}`, { param: 'model' });
  }
  const tools = input.tools ?? 'recorded';
  const plan: ReplayPlan = {
    executionId: original.id,
    fromStep: input.fromStep,
    tools,
    ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
    prefix: steps.slice(0, input.fromStep).map((s) => ({ ...s, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } })),
    recorded: tools === 'recorded' ? recordedCalls(steps) : [],
  };
  // The conversation as the original's model saw it: its messages before the original's own turn.
  const rows = await db
    .select({ role: messages.role, content: messages.content, modelMessage: messages.modelMessage, executionId: messages.executionId })
    .from(messages)
    .where(eq(messages.conversationId, original.conversationId))
    .orderBy(asc(messages.id));
  const turn = rows.findIndex((m) => m.executionId === original.id);
  const history = (turn === -1 ? [] : rows.slice(0, turn)) as ReplayStart['history'];
  return {
    agentId: original.agentId,
    input: { input: input.input ?? original.input, ...(input.metadata ? { metadata: input.metadata } : {}) },
    replay: { plan, history, model: input.model ?? original.model, version: original.agentVersion },
  };
}

/** Every call the original ran, with its result (a denied call never ran: it is not recorded). */
function recordedCalls(steps: StoredStep[]): ReplayPlan['recorded'] {
  const out: ReplayPlan['recorded'] = [];
  for (const step of steps) {
    for (const call of step.toolCalls) {
      if (call.approval && !call.approval.approved) continue;
      const result = step.toolResults.find((r) => r.id === call.id);
      if (!result) continue;
      out.push({ tool: call.name, arguments: canonicalJson(call.approval?.arguments ?? call.arguments), result: result.result, isError: result.isError });
    }
  }
  return out;
}

/**
 * The run's tools with recorded answers: the same names, descriptions and parameters (what the
 * model is offered does not change), none of them called. The first recorded call of a tool with
 * equal arguments answers; a call the original never made answers `not_recorded`.
 */
export function recordedTools(tools: ToolSet, recorded: ReplayPlan['recorded']): ToolSet {
  const out: ToolSet = {};
  for (const [name, t] of Object.entries(tools)) {
    out[name] = defineTool({
      description: t.description,
      inputSchema: t.inputSchema,
      execute: async (args: unknown) => {
        const text = canonicalJson(args);
        const hit = recorded.find((r) => r.tool === name && r.arguments === text);
        return hit ? hit.result : NOT_RECORDED;
      },
    } as never);
  }
  return out;
}
