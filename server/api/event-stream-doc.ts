import { executionEventSchema } from '../modules/executions/events';
import { sseBlock } from './sse';

// How the OpenAPI document describes an execution's event stream (`text/event-stream`), from the
// events' own schemas (events.ts; the document carries them as `ExecutionEvent`): the stream
// route's answer, and execute's with `stream: true` (a procedure's meta `eventStream`).

export const eventStreamDescription =
  'Server-Sent Events, one per event of the execution, in order, the terminal one last, after which the stream ends:\n\n' +
  executionEventSchema.options.map((o) => `- \`${o.shape.type.value}\`: ${o.meta()?.description ?? ''}`).join('\n') +
  '\n\nEach block has `id:` (the event’s sequence number, for `Last-Event-ID`), `event:` (its type) and `data:` (the event as JSON, ' +
  'an `ExecutionEvent`: see the schemas). A `: ping` comment every 15 s keeps proxies from closing an idle stream.';

export const eventStreamContent = {
  'text/event-stream': {
    schema: {
      type: 'string' as const,
      description: 'Blocks of `id:`, `event:` and `data:` lines; each `data:` is an `ExecutionEvent` (components/schemas).',
      // OpenAPI 3.2's name for the schema of each item of a sequential media type; 3.1 tools ignore it.
      'x-itemSchema': { $ref: '#/components/schemas/ExecutionEvent' },
    },
    example: sseBlock(2, 'text.delta', JSON.stringify({ type: 'text.delta', delta: 'Hello', step: 0 })),
  },
};
