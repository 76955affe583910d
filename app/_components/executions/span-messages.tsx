import type { ReactNode } from 'react';
import { formatCount } from '@/app/_lib/format';
import { parseContent } from '@/app/_lib/trace';
import { sentence } from '@/app/_lib/words';
import { Badge } from '../ui';
import { JsonBlock } from './json-block';

// A span's recorded content (the agent's `traceContent`, docs/traces.md "Content") for people: a
// model call's messages as the AI SDK's message parts — each message's role, its text, the tool
// calls it made and the results it was given — and anything else (a tool's arguments and result,
// a value cut at 32 KB) as JSON or text.

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const ROLE_TONES = { system: 'slate', user: 'indigo', assistant: 'green', tool: 'violet' } as const;

/** A tool call in a message: the AI SDK's part (`toolName`, `input`) or the run's own (`name`, `arguments`). */
function ToolCall({ part }: { part: Json }) {
  const name = String(part.toolName ?? part.name ?? 'tool');
  return (
    <div className="space-y-1.5 rounded-md bg-slate-50 p-2.5 ring-1 ring-slate-200">
      <p className="text-xs text-slate-700">
        <span aria-hidden>⚙ </span>Calls <code className="font-mono font-semibold text-slate-900">{name}</code>
      </p>
      <JsonBlock value={part.input ?? part.args ?? part.arguments ?? null} label="Arguments" />
    </div>
  );
}

/** A tool's result given to the model (`output: {type, value}` in the AI SDK's parts). */
function ToolResult({ part }: { part: Json }) {
  const output = part.output ?? part.result;
  const value = isObject(output) && 'value' in output ? output.value : output;
  const failed = isObject(output) && typeof output.type === 'string' && output.type.startsWith('error');
  return (
    <div className="space-y-1.5 rounded-md bg-slate-50 p-2.5 ring-1 ring-slate-200">
      <p className="text-xs text-slate-700">
        <code className="font-mono font-semibold text-slate-900">{String(part.toolName ?? 'tool')}</code> {failed ? 'failed' : 'returned'}
      </p>
      <JsonBlock value={value ?? null} tone={failed ? 'error' : 'default'} />
    </div>
  );
}

function Part({ part }: { part: unknown }) {
  if (typeof part === 'string') return <p className="text-sm break-words whitespace-pre-wrap text-slate-800">{part}</p>;
  if (isObject(part) && part.type === 'text' && typeof part.text === 'string') return <Part part={part.text} />;
  if (isObject(part) && part.type === 'tool-call') return <ToolCall part={part} />;
  if (isObject(part) && part.type === 'tool-result') return <ToolResult part={part} />;
  return <JsonBlock value={part} />;
}

function Message({ message }: { message: Json }) {
  const role = String(message.role);
  const content = Array.isArray(message.content) ? message.content : message.content === undefined || message.content === '' ? [] : [message.content];
  const calls = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isObject) : [];
  return (
    <li className="space-y-2 px-3 py-2.5" data-testid="span-message" data-role={role}>
      <Badge tone={ROLE_TONES[role as keyof typeof ROLE_TONES] ?? 'slate'}>{sentence(role)}</Badge>
      {content.map((part, i) => (
        <Part key={i} part={part} />
      ))}
      {calls.map((call, i) => (
        <ToolCall key={`call-${i}`} part={call} />
      ))}
      {content.length === 0 && calls.length === 0 && <p className="text-xs text-slate-500">No text.</p>}
    </li>
  );
}

/** One content attribute under its label: messages as a conversation, anything else as JSON (or text). */
export function SpanContent({ label, text, testId, tone = 'default' }: { label: ReactNode; text: string; testId: string; tone?: 'default' | 'error' }) {
  const { value, cut } = parseContent(text);
  const messages = Array.isArray(value) && value.length > 0 && value.every((m) => isObject(m) && typeof m.role === 'string') ? (value as Json[]) : null;
  return (
    <div className="min-w-0 space-y-1.5" data-testid={testId}>
      <p className="text-xs font-medium text-slate-500">{label}</p>
      {messages ? (
        <ol className="divide-y divide-slate-100 rounded-md ring-1 ring-slate-200">
          {messages.map((m, i) => (
            <Message key={i} message={m} />
          ))}
        </ol>
      ) : (
        <JsonBlock value={value} tone={tone} />
      )}
      {cut !== null && <p className="text-xs text-amber-700">Cut at 32 KB: {formatCount(cut)} more bytes were not recorded.</p>}
    </div>
  );
}
