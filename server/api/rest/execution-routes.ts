import { z } from 'zod';
import type { SchemaObject } from 'openapi3-ts/oas31';
import { ApiError, notFound } from '../../platform/errors';
import { assertSafeKeys } from '../../platform/metadata';
import { json, respond, type Answer } from './answer';
import type { Query } from './body';
import type { MarkerReplay } from './idempotency';
import type { RawRoute } from './routes';
import type { Services } from '../../modules/runtime';
import { findNul, inputError } from '../trpc/input-errors';
import { executionView, type Run } from '../../modules/executions/engine';
import { executionEventSchema } from '../../modules/executions/events';
import { executeInput } from '../../modules/executions/schemas';
import { findExecutionState } from '../../modules/executions/service';
import { isFinal } from '../../modules/executions/statuses';
import { closeSignal, sseBlock, writeEventsTo } from '../sse';
import { newId } from '../../platform/ids';

// The two execution routes that write their own response: execute (202, 200 or an event
// stream, chosen by the body) and the resumable event stream of any execution.

/** How long `wait: true` waits beyond the agent's own timeout before answering with the execution as it is. */
const WAIT_GRACE_SECONDS = 30;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorIfQuery = (query: Query) => {
  const [param] = Object.keys(query);
  if (param !== undefined) throw new ApiError('unknown_parameter', `Unknown query parameter '${param.slice(0, 64)}'`, { param: param.slice(0, 64) });
};

/** The stream's documentation, from the events' own schemas (events.ts; the document carries them as `ExecutionEvent`). */
const eventStreamDoc = {
  description:
    'Server-Sent Events, one per event of the execution, in order, the terminal one last, after which the stream ends:\n\n' +
    executionEventSchema.options.map((o) => `- \`${o.shape.type.value}\`: ${o.meta()?.description ?? ''}`).join('\n') +
    '\n\nEach block has `id:` (the event’s sequence number, for `Last-Event-ID`), `event:` (its type) and `data:` (the event as JSON, ' +
    'an `ExecutionEvent`: see the schemas). A `: ping` comment every 15 s keeps proxies from closing an idle stream.',
  content: {
    'text/event-stream': {
      schema: { type: 'string' as const, description: 'Blocks of `id:`, `event:` and `data:` lines; each `data:` is an `ExecutionEvent` (components/schemas).' },
      example: sseBlock(2, 'text.delta', JSON.stringify({ type: 'text.delta', delta: 'Hello', step: 0 })),
    },
  },
};

export const executeRoute: RawRoute = {
  method: 'POST',
  template: '/v1/agents/{id}/execute',
  scope: 'agents:execute',
  openapi: {
    errors: ['resource_not_found', 'conversation_busy', 'parameter_conflict', 'idempotency_conflict'],
    operation: {
      operationId: 'agents-execute',
      summary: 'Execute an agent',
      description:
        'Runs the agent on `input`. By default answers 202 with the queued execution at once; `wait: true` answers 200 with the finished execution; `stream: true` answers with its events as they happen. Disconnecting never cancels the execution.',
      tags: ['Executions'],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The agent to run.' }],
      requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(executeInput, { io: 'input' }) as SchemaObject } } },
      responses: {
        '202': { description: 'Queued: poll `GET /v1/executions/{id}`, follow its stream, or wait for a webhook.', content: { 'application/json': { schema: ref('Execution') } } },
        '200': {
          description: '`wait: true`: the finished execution (or, past the agent’s timeout plus 30 s, as it is then). `stream: true`: the event stream.',
          content: { 'application/json': { schema: ref('Execution') }, ...eventStreamDoc.content },
        },
      },
    },
  },
  async handle({ services, key, params, query, body }): Promise<Answer> {
    errorIfQuery(query);
    const raw = await body();
    const nul = findNul(raw);
    if (nul !== null) throw new ApiError('invalid_parameter', `'${nul || 'input'}' must not contain NUL characters`, nul ? { param: nul } : {});
    assertSafeKeys(raw, 'metadata');
    const parsed = executeInput.safeParse(raw);
    if (!parsed.success) throw inputError(parsed.error.issues, raw);
    const input = parsed.data;
    if (input.wait && input.stream) throw new ApiError('parameter_conflict', "'wait' and 'stream' cannot both be true", { param: 'stream' });
    const { engine, streams } = services;
    const id = newId('exe');
    // A stream counts against the key's open streams, a wait against the workspace's waiting
    // requests, before anything is created.
    const open = input.stream ? await streams.acquire({ kind: 'key', id: key!.keyId, workspaceId: key!.workspaceId }) : null;
    const waiting = input.wait ? streams.acquireWait(key!.workspaceId) : null;
    // `wait: true` listens for the terminal event before the execution exists (never too late).
    const watch = input.wait ? engine.watch(id) : undefined;
    let started: Run;
    try {
      // A caller that waits or streams is served fastest by a run in this process (no hand-over).
      started = await engine.start(key!, params.id!, input, { id, inPlace: input.wait === true || input.stream === true });
    } catch (err) {
      watch?.close();
      open?.close();
      waiting?.();
      throw err;
    }
    const { row, timeoutSeconds, running: run, ahead = 0 } = started;
    // Under an Idempotency-Key a long answer is kept as its marker: a retry replays the same
    // kind of answer for this execution.
    if (input.stream) {
      return {
        status: 200,
        marker: JSON.stringify({ $stream: row.id }),
        async write(res) {
          try {
            await writeEventsTo(res, (signal) => engine.follow({ executionId: row.id, afterSeq: 0, signal }), open!.signal);
          } finally {
            open!.close();
          }
        },
      };
    }
    if (input.wait) {
      return {
        status: 200,
        marker: JSON.stringify({ $wait: row.id }),
        async write(res) {
          try {
            // Run here: its outcome as recorded (unless another party ended it: then read it).
            const final = run ? await run : null;
            const done = final ?? (await engine.wait(row.id, { timeoutMs: (timeoutSeconds * (1 + ahead) + WAIT_GRACE_SECONDS) * 1000, signal: closeSignal(res), watch }));
            if (final) watch?.close();
            await respond(res, json(200, executionView(done)));
          } finally {
            waiting!();
          }
        },
      };
    }
    return json(202, executionView(row));
  },
};

export const streamRoute: RawRoute = {
  method: 'GET',
  template: '/v1/executions/{id}/stream',
  scope: 'agents:execute',
  openapi: {
    errors: ['resource_not_found'],
    operation: {
      operationId: 'executions-stream',
      summary: 'Stream an execution’s events',
      description:
        'Replays the events of any execution from the start (or after the `Last-Event-ID` header), follows new ones live until the terminal event, then closes. Works from any server process while the run happens in any worker; for a finished execution it replays them all.',
      tags: ['Executions'],
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 }, description: 'Resume after this event (the `id:` of the last event received).' },
      ],
      responses: { '200': eventStreamDoc },
    },
  },
  async handle({ req, db, services, key, params, query }): Promise<Answer> {
    errorIfQuery(query);
    const header = req.headers['last-event-id'];
    let afterSeq = 0;
    if (header !== undefined) {
      const value = Array.isArray(header) ? header[0]! : header;
      if (!/^\d{1,9}$/.test(value.trim())) throw new ApiError('invalid_parameter', "'Last-Event-ID' must be the id of an event (a whole number)", { param: 'Last-Event-ID' });
      afterSeq = Number(value.trim());
    }
    const row = await findExecutionState(db, key!, params.id!);
    if (!row) throw notFound('execution', params.id!);
    const { engine, streams } = services;
    const open = await streams.acquire({ kind: 'key', id: key!.keyId, workspaceId: key!.workspaceId });
    return {
      status: 200,
      async write(res) {
        try {
          const final = isFinal(row.status);
          // Finished, and the client has every event already: nothing more will come (an empty stream).
          const follow = final && afterSeq >= row.eventSeq ? async function* () {} : (signal: AbortSignal) => engine.follow({ executionId: row.id, afterSeq, signal, final });
          await writeEventsTo(res, follow, open.signal);
        } finally {
          open.close();
        }
      },
    };
  },
};

/** The replay of an idempotent execute that answered with a stream or a wait: the same answer, for the same execution. */
export const replayExecution = ({ engine, streams }: Services): MarkerReplay => async (marker, key) => {
  const id = marker.$stream ?? marker.$wait!;
  if (marker.$stream) {
    const open = await streams.acquire({ kind: 'key', id: key.keyId, workspaceId: key.workspaceId });
    return {
      status: 200,
      async write(res) {
        try {
          await writeEventsTo(res, (signal) => engine.follow({ executionId: id, afterSeq: 0, signal }), open.signal);
        } finally {
          open.close();
        }
      },
    };
  }
  const waiting = streams.acquireWait(key.workspaceId);
  return {
    status: 200,
    async write(res) {
      try {
        const done = await engine.wait(id, { timeoutMs: (900 + WAIT_GRACE_SECONDS) * 1000, signal: closeSignal(res) });
        await respond(res, json(200, executionView(done)));
      } finally {
        waiting();
      }
    },
  };
};
