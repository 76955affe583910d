import { asSchema, jsonSchema, Output, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { prepareRetries } from 'ai/internal';
import type { AwaitedCall, StoredStep } from '../../../db/schema';
import type { CallUsage, CallVerdict, ModelCall, RefusalCode, RunObserver } from '../vocabulary/participants';
import { classifyModelError } from '../models/registry';
import { modelCall } from '../models/model-call';
import type { EventData } from './events';
import { shownDecision } from './pause';

// The agent loop of a run: model call, its tool calls, their results back to the model, until
// the model answers without tools or `maxSteps` calls were made. Each call goes through the AI
// SDK's single-call stream (`experimental_streamLanguageModelCall`: the prompt standardised, the
// tools prepared, tool calls parsed, usage and finish reason reported; for the OpenAI-compatible
// client, the same steps without its web streams: models/model-call.ts), the loop is ours:
// `streamText` does the same with a stream pipeline per step that cost ~5 ms of CPU per answer
// of 40 tokens more (docs/benchmark.md), most of a run's CPU at a hosted model's pace.

/** What the loop reports as it happens: the data of a run's `text.delta`, `tool.call` and `tool.result` events (events.ts). */
export interface LoopEvents {
  text(delta: string, step: number): Promise<void>;
  toolCall(call: EventData<'tool.call'>): Promise<void>;
  toolResult(result: EventData<'tool.result'>): Promise<void>;
}

type CallResult = { id: string; name: string; result: unknown; isError: boolean; invalid?: boolean };

export interface LoopResult {
  steps: StoredStep[];
  /** The assistant and tool messages of the run, to append to the conversation. */
  responseMessages: ModelMessage[];
  /** What made the run stop early, if anything did (the provider's error). */
  failure: unknown;
  /**
   * The run stops for approval (docs/approvals.md): the last step's calls that need a person's
   * decision (the others ran, their results here). `responseMessages` ends before that step.
   */
  paused?: { step: number; calls: { id: string; tool: string; arguments: unknown }[]; results: CallResult[] };
  /** The run passed its token cap at the last step: no further model call was started. */
  overTokens?: { used: number; limit: number };
  /** A participant refused the next model call (a budget: docs/budgets.md): the run's error. */
  refused?: { code: RefusalCode; message: string };
  /** With an output schema: the final answer, parsed and valid. */
  outputJson?: unknown;
  /** With an output schema: the final answer was still not valid after the one repair turn (the errors). */
  invalidOutput?: string;
}

/** What a run with an output schema asks of its final answer (docs/versions.md, "Structured outputs"). */
export interface OutputCheck {
  schema: Record<string, unknown>;
  /** The answer parsed and valid, or why not. */
  check(text: string): Promise<{ ok: true; value: unknown } | { ok: false; errors: string }>;
}

/** What the guard says before a model call: a refusal stops the run with its error; else the call starts, with at most `maxOutputTokens` of answer when given. */
export type GuardVerdict = CallVerdict;

/** What the loop asks before each model call and reports after it (the run's participants: participants.ts). */
export interface CallGuard {
  /** Before a model call; its prompt is built when asked: most runs never need it. */
  before(call: ModelCall): Promise<GuardVerdict>;
  /**
   * After a model call, with what it used (also when it failed part way); `last`: the run ends
   * after it (no further model call is coming: its charge may wait for the run's end).
   */
  after(usage: CallUsage, last: boolean): Promise<void>;
}

/** Where a resumed run goes on from: its steps so far and the paused step's calls, every one decided. */
export interface ResumeFrom {
  steps: StoredStep[];
  /** The run's messages before the paused step. */
  messages: ModelMessage[];
  step: number;
  results: CallResult[];
  calls: AwaitedCall[];
}

export async function runModelLoop(
  opts: {
    model: LanguageModel;
    instructions: string | null;
    history: ModelMessage[];
    tools: ToolSet;
    maxSteps: number;
    temperature: number | null;
    signal: AbortSignal;
    /** The run's token cap (every step's input and output), checked after each step; null: none. */
    maxTotalTokens?: number | null;
    /** The tools whose calls wait for a person's decision (none: every call runs). */
    needsApproval?: (toolName: string) => boolean;
    resume?: ResumeFrom;
    /** A replay's steps taken as recorded (docs/traces.md, "Replay"): sent back to the model as they were, the loop going on after them. */
    recorded?: StoredStep[];
    guard?: CallGuard;
    /** What watches the loop as it happens (the run's participants: traces). */
    observer?: RunObserver;
    /** The final answer must be JSON valid against a schema: the provider's structured output, and one repair turn. */
    output?: OutputCheck;
  },
  on: LoopEvents,
): Promise<LoopResult> {
  const steps: StoredStep[] = [...(opts.resume?.steps ?? [])];
  const responseMessages: ModelMessage[] = [...(opts.resume?.messages ?? [])];
  const messages = [...opts.history, ...responseMessages];
  const observer = opts.observer;
  /** One call of a tool, watched. */
  const callTool = async (index: number, call: ToolCall) => {
    observer?.toolStarted?.(index, { id: call.toolCallId, name: call.toolName, arguments: call.input });
    const out = await runTool(opts.tools, call, messages, opts.signal);
    observer?.toolEnded?.(index, { id: call.toolCallId, name: call.toolName, result: out.output, isError: out.isError });
    return out;
  };
  let first = 0;
  for (const step of opts.recorded ?? []) {
    const answered = answer(step, step.toolResults);
    steps.push(step);
    messages.push(...answered);
    responseMessages.push(...answered);
    first = step.index + 1;
  }
  if (opts.resume) {
    const { step: index, results, calls } = opts.resume;
    const step = steps[index]!;
    // The decided calls: an approved one runs now (once: docs/approvals.md), a denied one answers the model with its reason.
    const decided = await Promise.all(
      calls.map(async (c): Promise<CallResult> => {
        const d = c.decision!;
        if (!d.approved) return { id: c.id, name: c.tool, result: { denied: true, reason: d.reason }, isError: false };
        const output = await callTool(index, { toolCallId: c.id, toolName: c.tool, input: d.arguments });
        return { id: c.id, name: c.tool, result: output.output, isError: output.isError };
      }),
    );
    for (const r of decided) await on.toolResult({ toolCallId: r.id, name: r.name, result: r.result, isError: r.isError, step: index });
    const all = [...results, ...decided];
    // In the model's order, with the arguments each call ran with.
    const order = new Map(step.toolCalls.map((c, i) => [c.id, i]));
    all.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const decisions = new Map(calls.map((c) => [c.id, c.decision!]));
    steps[index] = {
      ...step,
      // The decision as the step shows it (the deciding request's span goes to the trace only).
      toolCalls: step.toolCalls.map((c) => (decisions.has(c.id) ? { ...c, approval: shownDecision(decisions.get(c.id)!) } : c)),
      toolResults: [...step.toolResults, ...decided.map(({ invalid: _, ...r }) => r)],
    };
    const answered = answer(steps[index]!, all);
    messages.push(...answered);
    responseMessages.push(...answered);
    first = index + 1;
  }
  /** The tools' definitions as the model reads them, for a guard that reads the prompt (once a run, when one asks). */
  let toolsText: unknown;
  // One retry of a call that failed before streaming (429, 5xx, network), like streamText's maxRetries: 1.
  const { retry } = prepareRetries({ maxRetries: 1, abortSignal: opts.signal });
  const format = opts.output ? Output.object({ schema: jsonSchema(opts.output.schema as Parameters<typeof jsonSchema>[0]) }) : undefined;
  /** The repair turn, once taken (it may go one step past `maxSteps`). */
  let repaired = false;
  let checked: { ok: true; value: unknown } | { ok: false; errors: string } | undefined;
  for (let index = first; index < opts.maxSteps + (repaired ? 1 : 0); index++) {
    const step = newStep(index);
    const calls: ToolCall[] = [];
    const results: CallResult[] = [];
    let finishReason = 'unknown';
    let usage = { inputTokens: 0, outputTokens: 0 };
    let failure: unknown = null;
    let verdict: GuardVerdict = {};
    if (opts.guard) {
      const prompt = async () => {
        toolsText ??= await describeTools(opts.tools);
        return { instructions: opts.instructions, messages, tools: toolsText };
      };
      verdict = await opts.guard.before({ prompt });
      if ('refusal' in verdict) return { steps, responseMessages, failure: null, refused: verdict.refusal };
    }
    const maxOutputTokens = 'maxOutputTokens' in verdict ? verdict.maxOutputTokens : undefined;
    observer?.callStarted?.(index, { messages });
    let tokened = false;
    const firstToken = () => {
      if (tokened) return;
      tokened = true;
      observer?.firstToken?.(index);
    };
    try {
      const { stream } = await retry(() =>
        modelCall({
          model: opts.model,
          ...(opts.instructions ? { instructions: opts.instructions } : {}),
          messages,
          tools: opts.tools,
          ...(opts.temperature !== null ? { temperature: opts.temperature } : {}),
          ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
          ...(format ? { output: format } : {}),
          abortSignal: opts.signal,
        }),
      );
      for await (const part of stream) {
        switch (part.type) {
          case 'text-delta':
            firstToken();
            step.text += part.text;
            await on.text(part.text, index);
            break;
          case 'tool-call':
            firstToken();
            step.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
            await on.toolCall({ toolCallId: part.toolCallId, name: part.toolName, arguments: part.input, step: index });
            // An invalid call (unknown tool, arguments that do not parse) is followed by its tool-error.
            if (!part.invalid) calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
            break;
          case 'tool-error':
            results.push({ id: part.toolCallId, name: part.toolName, result: { error: errorText(part.error) }, isError: true, invalid: true });
            break;
          case 'model-call-end':
            finishReason = part.finishReason;
            usage = { inputTokens: part.usage.inputTokens ?? 0, outputTokens: part.usage.outputTokens ?? 0 };
            break;
          case 'error':
            failure = part.error;
            break;
        }
      }
    } catch (err) {
      failure = err;
    }
    if (observer?.callEnded) {
      // A call the run's end cut short (a cancel, the timeout) is interrupted, not the model's error.
      const error = !failure ? undefined : opts.signal.aborted ? { code: 'interrupted', message: `The run ended (${String(opts.signal.reason)}) before this call did` } : classifyModelError(failure);
      observer.callEnded(index, { usage, finishReason, output: { text: step.text, toolCalls: step.toolCalls }, ...(error ? { error } : {}) });
    }
    // The calls that need a person's decision wait (the run pauses after this step); the others run at once.
    const awaited = opts.needsApproval ? calls.filter((c) => opts.needsApproval!(c.toolName)) : [];
    // A final answer with an output schema is checked before the call's charge: a repair turn may follow.
    const final = !failure && (finishReason !== 'tool-calls' || step.toolCalls.length === 0);
    checked = final && opts.output ? await opts.output.check(step.text) : undefined;
    const repairing = checked?.ok === false && !repaired;
    if (opts.guard && usage.inputTokens + usage.outputTokens > 0) {
      const usedNow = steps.reduce((n, s) => n + s.usage.totalTokens, 0) + usage.inputTokens + usage.outputTokens;
      const last =
        Boolean(failure) ||
        awaited.length > 0 ||
        finishReason !== 'tool-calls' ||
        (step.toolCalls.length === 0 && !repairing) ||
        (index + 1 >= opts.maxSteps && !repairing) ||
        (opts.maxTotalTokens != null && usedNow > opts.maxTotalTokens);
      await opts.guard.after(usage, last);
    }
    if (failure) return { steps, responseMessages, failure };

    const now = awaited.length > 0 ? calls.filter((c) => !awaited.includes(c)) : calls;
    // The tools run at once; each answers (an error is its result, never a throw: toolset.ts).
    const executed = await Promise.all(
      now.map(async (call): Promise<CallResult> => {
        const { output, isError } = await callTool(index, call);
        return { id: call.toolCallId, name: call.toolName, result: output, isError };
      }),
    );
    results.push(...executed);
    for (const r of results) {
      step.toolResults.push({ id: r.id, name: r.name, result: r.result, isError: r.isError });
      await on.toolResult({ toolCallId: r.id, name: r.name, result: r.result, isError: r.isError, step: index });
    }
    steps.push(endStep(step, finishReason, usage));
    // Past the cap: the run ends after this step, before any further model call (its calls of this step ran).
    const used = steps.reduce((n, s) => n + s.usage.totalTokens, 0);
    if (opts.maxTotalTokens != null && used > opts.maxTotalTokens) return { steps, responseMessages, failure: null, overTokens: { used, limit: opts.maxTotalTokens } };
    if (awaited.length > 0) {
      return { steps, responseMessages, failure: null, paused: { step: index, calls: awaited.map((c) => ({ id: c.toolCallId, tool: c.toolName, arguments: c.input })), results } };
    }

    const answered = answer(step, results);
    messages.push(...answered);
    if (repairing && checked?.ok === false) {
      // One repair turn (a step like any other): the model is told why its answer does not do.
      repaired = true;
      messages.push({ role: 'user', content: repairPrompt(checked.errors) });
      continue;
    }
    responseMessages.push(...answered);
    if (finishReason !== 'tool-calls' || step.toolCalls.length === 0) break;
  }
  if (checked?.ok === true) return { steps, responseMessages, failure: null, outputJson: checked.value };
  if (checked?.ok === false) return { steps, responseMessages, failure: null, invalidOutput: checked.errors };
  return { steps, responseMessages, failure: null };
}

type ToolCall = { toolCallId: string; toolName: string; input: unknown };

/** Runs one call of a tool; its answer (an error is an answer: toolset.ts never throws). */
async function runTool(tools: ToolSet, call: ToolCall, messages: ModelMessage[], signal: AbortSignal) {
  const tool = tools[call.toolName];
  if (!tool?.execute) return { output: { error: `Not called: the tool '${call.toolName}' is no longer offered` }, isError: true };
  const output = await tool.execute(call.input as never, { toolCallId: call.toolCallId, messages, abortSignal: signal, context: {} });
  const isError = typeof output === 'object' && output !== null && 'error' in output;
  return { output: output as unknown, isError };
}

/** A step as the model is sent it back: its text and calls, then the calls' results. */
function answer(step: StoredStep, results: CallResult[]): ModelMessage[] {
  const assistant: ModelMessage = {
    role: 'assistant',
    content: [
      ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
      ...step.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.approval?.arguments ?? c.arguments })),
    ],
  };
  if (results.length === 0) return [assistant];
  return [
    assistant,
    {
      role: 'tool',
      content: results.map((r) => ({
        type: 'tool-result' as const,
        toolCallId: r.id,
        toolName: r.name,
        // A call that never ran (invalid) is an error text, as the AI SDK sends it; a tool's own answer is its result.
        output: r.invalid ? { type: 'error-text' as const, value: (r.result as { error: string }).error } : modelOutput(r.result),
      })),
    },
  ];
}

/** A tool's result as the model is sent it (the AI SDK's own shape: text stays text, the rest JSON). */
function modelOutput(output: unknown): { type: 'text'; value: string } | { type: 'json'; value: never } {
  if (typeof output === 'string') return { type: 'text', value: output };
  return { type: 'json', value: JSON.parse(JSON.stringify(output ?? null)) as never };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function newStep(index: number): StoredStep {
  const at = new Date().toISOString();
  return { index, text: '', toolCalls: [], toolResults: [], finishReason: 'unknown', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, startedAt: at, completedAt: at };
}

function endStep(step: StoredStep, finishReason: string, usage: { inputTokens: number; outputTokens: number }): StoredStep {
  return { ...step, finishReason, usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens }, completedAt: new Date().toISOString() };
}

/** Each tool's name, description and parameters' JSON Schema (what the model is sent of it). */
async function describeTools(tools: ToolSet): Promise<unknown> {
  return Promise.all(
    Object.entries(tools).map(async ([name, t]) => [name, t.description ?? '', t.inputSchema ? await asSchema(t.inputSchema).jsonSchema : null]),
  );
}

/** What the repair turn tells the model (docs/versions.md, "Structured outputs"). */
export const repairPrompt = (errors: string) =>
  `Your answer is not valid for the required JSON Schema: ${errors.slice(0, 2_000)}. Answer again with only the JSON object, valid against the schema.`;
