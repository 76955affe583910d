import { experimental_streamLanguageModelCall as streamModelCall, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { prepareRetries } from 'ai/internal';
import type { StoredStep } from '../../../db/schema';
import type { EventData } from './events';

// The agent loop of a run: model call, its tool calls, their results back to the model, until
// the model answers without tools or `maxSteps` calls were made. Each call goes through the AI
// SDK's single-call stream (`experimental_streamLanguageModelCall`: the prompt standardised, the
// tools prepared, tool calls parsed, usage and finish reason reported), the loop is ours:
// `streamText` does the same with a stream pipeline per step that cost ~5 ms of CPU per answer
// of 40 tokens more (docs/benchmark.md), most of a run's CPU at a hosted model's pace.

/** What the loop reports as it happens: the data of a run's `text.delta`, `tool.call` and `tool.result` events (events.ts). */
export interface LoopEvents {
  text(delta: string, step: number): Promise<void>;
  toolCall(call: EventData<'tool.call'>): Promise<void>;
  toolResult(result: EventData<'tool.result'>): Promise<void>;
}

export interface LoopResult {
  steps: StoredStep[];
  /** The assistant and tool messages of the run, to append to the conversation. */
  responseMessages: ModelMessage[];
  /** What made the run stop early, if anything did (the provider's error). */
  failure: unknown;
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
  },
  on: LoopEvents,
): Promise<LoopResult> {
  const steps: StoredStep[] = [];
  const responseMessages: ModelMessage[] = [];
  const messages = [...opts.history];
  // One retry of a call that failed before streaming (429, 5xx, network), like streamText's maxRetries: 1.
  const { retry } = prepareRetries({ maxRetries: 1, abortSignal: opts.signal });
  for (let index = 0; index < opts.maxSteps; index++) {
    const step = newStep(index);
    const calls: { toolCallId: string; toolName: string; input: unknown }[] = [];
    const results: { toolCallId: string; toolName: string; output: unknown; isError: boolean; invalid?: boolean }[] = [];
    let finishReason = 'unknown';
    let usage = { inputTokens: 0, outputTokens: 0 };
    let failure: unknown = null;
    try {
      const { stream } = await retry(() =>
        streamModelCall({
          model: opts.model,
          ...(opts.instructions ? { instructions: opts.instructions } : {}),
          messages,
          tools: opts.tools,
          ...(opts.temperature !== null ? { temperature: opts.temperature } : {}),
          abortSignal: opts.signal,
          _internal: { collectContent: false },
        }),
      );
      for await (const part of stream) {
        switch (part.type) {
          case 'text-delta':
            step.text += part.text;
            await on.text(part.text, index);
            break;
          case 'tool-call':
            step.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
            await on.toolCall({ toolCallId: part.toolCallId, name: part.toolName, arguments: part.input, step: index });
            // An invalid call (unknown tool, arguments that do not parse) is followed by its tool-error.
            if (!part.invalid) calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
            break;
          case 'tool-error':
            results.push({ toolCallId: part.toolCallId, toolName: part.toolName, output: { error: errorText(part.error) }, isError: true, invalid: true });
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
    if (failure) return { steps, responseMessages, failure };

    // The tools run at once; each answers (an error is its result, never a throw: toolset.ts).
    const executed = await Promise.all(
      calls.map(async (call) => {
        const tool = opts.tools[call.toolName];
        const output = await tool!.execute!(call.input as never, { toolCallId: call.toolCallId, messages, abortSignal: opts.signal, context: {} });
        const isError = typeof output === 'object' && output !== null && 'error' in output;
        return { ...call, output, isError };
      }),
    );
    results.push(...executed);
    for (const r of results) {
      step.toolResults.push({ id: r.toolCallId, name: r.toolName, result: r.output, isError: r.isError });
      await on.toolResult({ toolCallId: r.toolCallId, name: r.toolName, result: r.output, isError: r.isError, step: index });
    }
    steps.push(endStep(step, finishReason, usage));

    const assistant: ModelMessage = {
      role: 'assistant',
      content: [
        ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
        ...step.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.arguments })),
      ],
    };
    const answered: ModelMessage[] = [assistant];
    if (results.length > 0) {
      answered.push({
        role: 'tool',
        content: results.map((r) => ({
          type: 'tool-result' as const,
          toolCallId: r.toolCallId,
          toolName: r.toolName,
          // A call that never ran (invalid) is an error text, as the AI SDK sends it; a tool's own answer is its result.
          output: r.invalid ? { type: 'error-text' as const, value: (r.output as { error: string }).error } : modelOutput(r.output),
        })),
      });
    }
    messages.push(...answered);
    responseMessages.push(...answered);
    if (finishReason !== 'tool-calls' || step.toolCalls.length === 0) break;
  }
  return { steps, responseMessages, failure: null };
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
