import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  JSONSchema7,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';

// The offline `sandbox` provider (docs/api.md, "Models"): a LanguageModelV4 that answers from the
// prompt alone, so test mode runs the whole pipeline (streaming, tool calls, usage) offline.
//   - The last user message names an offered tool (whole word, any case) and no result of that
//     tool follows it → one call of that tool, its arguments made up from the tool's JSON Schema.
//     HTTP and MCP tools alike, by the name the model sees (`lookup_order`, `docs_search`).
//   - Tool results follow the last user message → "The <tool> tool returned: <json>" (or
//     "failed: …" for a tool error), one line per result.
//   - Otherwise → "Echo: <last user text>".
// Same prompt (instructions, history, input, tools) → same answer, tool-call ids included.
// Usage is about one token per 4 characters. `sandbox/slow` waits 200 ms between stream parts.

const MAX_STRING = 200;
const MAX_RESULT = 500;

/** Whether `text` names `tool` as a whole word, case-insensitively. */
export function namesTool(text: string, tool: string): boolean {
  const escaped = tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}(?=$|[^\\p{L}\\p{N}_])`, 'iu').test(text);
}

/**
 * The tool to call: of the offered tools named in the user's text and not answered yet, the one
 * named first in the text (ties: the first offered).
 */
export function pickTool(text: string, offered: string[], answered: Set<string>): string | null {
  let best: { name: string; at: number } | null = null;
  for (const name of offered) {
    if (answered.has(name) || !namesTool(text, name)) continue;
    const at = text.toLowerCase().indexOf(name.toLowerCase());
    if (!best || at < best.at) best = { name, at };
  }
  return best?.name ?? null;
}

/** What a string argument gets: the text after the tool's name, or else the whole text. */
export function subjectOf(text: string, tool: string): string {
  const at = text.toLowerCase().indexOf(tool.toLowerCase());
  const after = at >= 0 ? text.slice(at + tool.length).replace(/^[\s:,;.\-–—]+/, '').trim() : '';
  return (after || text.trim()).slice(0, MAX_STRING);
}

type Schema = JSONSchema7 | boolean | undefined;

/** A value that fits `schema`, made deterministically (strings from `subject`). */
export function argumentsFor(schema: Schema, subject: string, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 6) return subject;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) return argumentsFor(alternatives[0], subject, depth + 1);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type = types.find((t) => t !== 'null') ?? (types[0] === 'null' ? 'null' : schema.properties ? 'object' : undefined);
  switch (type) {
    case 'string':
      return subject.slice(0, schema.maxLength ?? MAX_STRING);
    case 'number':
    case 'integer': {
      const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
      const value = schema.maximum !== undefined ? Math.min(low, schema.maximum) : low;
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
      return Array.from({ length: schema.minItems ?? 0 }, () => argumentsFor(items, subject, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = schema.properties ?? {};
      for (const key of new Set([...(schema.required ?? []), ...Object.keys(props)])) {
        out[key] = argumentsFor(props[key], subject, depth + 1);
      }
      return out;
    }
    default:
      return subject;
  }
}

/** The text of a user message's text parts. */
const textOf = (content: ReadonlyArray<{ type: string; text?: string }>) =>
  content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');

const json = (v: unknown) => JSON.stringify(v) ?? 'null';

/** The visible value of a tool result output (JSON/text/error/denied/content). */
function outputValue(output: { type: string; value?: unknown; reason?: string }): unknown {
  if (output.type === 'execution-denied') return { denied: true, reason: output.reason ?? null };
  return output.value ?? null;
}

export type SandboxReply =
  | { kind: 'text'; text: string }
  | { kind: 'tool-call'; toolCallId: string; toolName: string; input: string };

/** What the sandbox answers to a prompt: pure, deterministic. */
export function sandboxReply(prompt: LanguageModelV4Prompt, tools: LanguageModelV4CallOptions['tools']): SandboxReply {
  let lastUser = -1;
  prompt.forEach((m, i) => m.role === 'user' && (lastUser = i));
  const userText = lastUser >= 0 ? textOf(prompt[lastUser]!.content as Array<{ type: string; text?: string }>) : '';

  const results: Array<{ name: string; value: unknown; failed: boolean }> = [];
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role !== 'tool') continue;
    for (const p of m.content) {
      if (p.type === 'tool-result') results.push({ name: p.toolName, value: outputValue(p.output), failed: p.output.type.startsWith('error') });
    }
  }

  const functions = (tools ?? []).filter((t) => t.type === 'function');
  const name = pickTool(userText, functions.map((t) => t.name), new Set(results.map((r) => r.name)));
  const chosen = functions.find((t) => t.name === name);
  if (chosen) {
    const input = json(argumentsFor(chosen.inputSchema, subjectOf(userText, chosen.name)));
    const hash = createHash('sha256').update(json(prompt)).update(chosen.name).digest('hex');
    return { kind: 'tool-call', toolCallId: `call_${hash.slice(0, 24)}`, toolName: chosen.name, input };
  }
  if (results.length > 0) {
    const lines = results.map((r) => `The ${r.name} tool ${r.failed ? 'failed' : 'returned'}: ${truncate(json(r.value), MAX_RESULT)}`);
    return { kind: 'text', text: lines.join('\n') };
  }
  return { kind: 'text', text: `Echo: ${userText}` };
}

const truncate = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** Characters the model "reads": instructions, messages, tool definitions. */
function promptChars(prompt: LanguageModelV4Prompt, tools: LanguageModelV4CallOptions['tools']): number {
  let chars = tools && tools.length > 0 ? json(tools.map((t) => ('inputSchema' in t ? [t.name, t.description, t.inputSchema] : [t.name]))).length : 0;
  for (const m of prompt) {
    if (m.role === 'system') {
      chars += m.content.length;
      continue;
    }
    for (const p of m.content) {
      if (p.type === 'text' || p.type === 'reasoning') chars += p.text.length;
      else if (p.type === 'tool-call') chars += p.toolName.length + json(p.input).length;
      else if (p.type === 'tool-result') chars += json(outputValue(p.output)).length;
    }
  }
  return chars;
}

const tokens = (chars: number) => Math.max(1, Math.ceil(chars / 4));

function usageOf(inputChars: number, outputChars: number, text: boolean): LanguageModelV4Usage {
  const input = tokens(inputChars);
  const output = tokens(outputChars);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: text ? output : undefined, reasoning: undefined },
  };
}

/** Splits text into word-sized deltas ("Echo: ", "hello ", "world"). */
export function chunksOf(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function abortError(): Error {
  return new DOMException('The sandbox model call was aborted', 'AbortError');
}

interface Answer {
  reply: SandboxReply;
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
  id: string;
}

class SandboxModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'sandbox';
  readonly supportedUrls = {};
  private readonly delayMs: number;

  constructor(readonly modelId: string) {
    this.delayMs = modelId === 'slow' ? 200 : 0;
  }

  private answer(options: LanguageModelV4CallOptions): Answer {
    if (options.abortSignal?.aborted) throw abortError();
    let reply = sandboxReply(options.prompt, options.tools);
    // Structured outputs (docs/versions.md): a final answer is an object valid against the schema asked for.
    const format = options.responseFormat;
    if (reply.kind === 'text' && format?.type === 'json' && format.schema) reply = { kind: 'text', text: JSON.stringify(argumentsFor(format.schema as Schema, reply.text.slice(0, 60))) };
    let outputChars = reply.kind === 'text' ? reply.text.length : reply.toolName.length + reply.input.length;
    let finishReason: LanguageModelV4FinishReason =
      reply.kind === 'tool-call' ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' };
    // A maximum output (a budget's reservation: docs/budgets.md) cuts the answer there, as a
    // provider's `max_tokens` does: what fits of it, as text, finishing with `length`.
    const max = options.maxOutputTokens;
    if (max !== undefined && tokens(outputChars) > max) {
      const text = (reply.kind === 'text' ? reply.text : `${reply.toolName} ${reply.input}`).slice(0, max * 4);
      reply = { kind: 'text', text };
      outputChars = text.length;
      finishReason = { unified: 'length', raw: 'length' };
    }
    const usage = usageOf(promptChars(options.prompt, options.tools), outputChars, reply.kind === 'text');
    const id = `sandbox-${createHash('sha256').update(json(options.prompt)).digest('hex').slice(0, 24)}`;
    return { reply, finishReason, usage, id };
  }

  /** The pause between stream parts: 200 ms for sandbox/slow, else one turn of the event loop. */
  private async pause(signal: AbortSignal | undefined): Promise<void> {
    if (this.delayMs > 0) await sleep(this.delayMs, undefined, signal ? { signal } : {}).catch(() => undefined);
    else await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw abortError();
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { reply, finishReason, usage, id } = this.answer(options);
    await this.pause(options.abortSignal);
    const content: LanguageModelV4Content[] =
      reply.kind === 'text' ? [{ type: 'text', text: reply.text }] : [{ type: 'tool-call', toolCallId: reply.toolCallId, toolName: reply.toolName, input: reply.input }];
    return { content, finishReason, usage, warnings: [], response: { id, modelId: this.modelId } };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { reply, finishReason, usage, id } = this.answer(options);
    const signal = options.abortSignal;
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }, { type: 'response-metadata', id, modelId: this.modelId }];
    if (reply.kind === 'text') {
      parts.push({ type: 'text-start', id: 'text-0' });
      for (const delta of chunksOf(reply.text)) parts.push({ type: 'text-delta', id: 'text-0', delta });
      parts.push({ type: 'text-end', id: 'text-0' });
    } else {
      const { toolCallId, toolName, input } = reply;
      parts.push({ type: 'tool-input-start', id: toolCallId, toolName }, { type: 'tool-input-delta', id: toolCallId, delta: input });
      parts.push({ type: 'tool-input-end', id: toolCallId }, { type: 'tool-call', toolCallId, toolName, input });
    }
    parts.push({ type: 'finish', finishReason, usage });

    let next = 0;
    let deltas = 0;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      pull: async (controller) => {
        const part = parts[next++];
        if (!part) return controller.close();
        // Pause before each text delta (the observable streaming), not before the bookkeeping parts.
        if (part.type === 'text-delta' && deltas++ > 0) await this.pause(signal);
        else if (signal?.aborted) throw abortError();
        controller.enqueue(part);
      },
    });
    return { stream, request: { body: { sandbox: true } }, response: { headers: {} } };
  }
}

/** A sandbox language model, e.g. `sandboxModel('echo')` for `sandbox/echo`. */
export function sandboxModel(modelId: string): LanguageModelV4 {
  return new SandboxModel(modelId);
}
