import type { Engine } from '../../modules/executions/engine';
import { ApiError, notFound } from '../../platform/errors';
import { json, respond, type Answer, type LongAnswer } from './answer';
import type { Query } from './body';
import type { MarkerReplay } from './idempotency';
import type { RawRoute } from './routes';
import type { Services } from '../../modules/runtime';
import { executionView, LONGEST_RUN_SECONDS, WAIT_GRACE_SECONDS } from '../../modules/executions/engine';
import { findExecutionState } from '../../modules/executions/service';
import { isFinal } from '../../modules/vocabulary/statuses';
import { closeSignal, writeEventsTo } from '../sse';
import { eventStreamContent, eventStreamDescription } from '../event-stream-doc';

// The long answers of executions: an execution's event stream (execute with `stream: true`, the
// stream route, their replays) and a `wait` (execute with `wait: true`, its replay), each written
// by the one writer of event streams (server/api/sse.ts) or as the execution once final. Execute
// itself is a procedure whose meta declares these answers (`eventStream`), asking for one through
// `ctx.reply` (procedures.ts, trpc/long-answer.ts); the stream route reads a header, so it stays a raw route.

const errorIfQuery = (query: Query) => {
  const [param] = Object.keys(query);
  if (param !== undefined) throw new ApiError('unknown_parameter', `Unknown query parameter '${param.slice(0, 64)}'`, { param: param.slice(0, 64) });
};

/** 200 with an execution's events after `afterSeq`, live until its terminal event or `stop`; `done` frees what the stream held. */
export function eventStreamAnswer(
  engine: Engine,
  executionId: string,
  opts: { stop: AbortSignal; done(): void; afterSeq?: number; final?: boolean; empty?: boolean },
): LongAnswer {
  const follow = opts.empty ? async function* () {} : (signal: AbortSignal) => engine.follow({ executionId, afterSeq: opts.afterSeq ?? 0, signal, final: opts.final });
  return {
    status: 200,
    async write(res) {
      try {
        await writeEventsTo(res, follow, opts.stop);
      } finally {
        opts.done();
      }
    },
  };
}

/** 200 with the execution `settle` resolves to (aborted when the client leaves); `done` frees what the wait held. */
export function waitAnswer(settle: (signal: AbortSignal) => Promise<unknown>, done: () => void): LongAnswer {
  return {
    status: 200,
    async write(res) {
      try {
        await respond(res, json(200, await settle(closeSignal(res))));
      } finally {
        done();
      }
    },
  };
}

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
      responses: { '200': { description: eventStreamDescription, content: eventStreamContent } },
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
    const final = isFinal(row.status);
    // Finished, and the client has every event already: nothing more will come (an empty stream).
    return eventStreamAnswer(engine, row.id, { stop: open.signal, done: open.close, afterSeq, final, empty: final && afterSeq >= row.eventSeq });
  },
};

/** The replay of an idempotent execute that answered with a stream or a wait: the same answer, for the same execution. */
export const replayExecution = ({ engine, streams }: Services): MarkerReplay => async (marker, key): Promise<Answer> => {
  const id = marker.$stream ?? marker.$wait!;
  if (marker.$stream) {
    const open = await streams.acquire({ kind: 'key', id: key.keyId, workspaceId: key.workspaceId });
    // Approvals' stream follows from its decisions on (`$after`); execute's from the start.
    const afterSeq = /^\d{1,9}$/.test(marker.$after ?? '') ? Number(marker.$after) : 0;
    return eventStreamAnswer(engine, id, { stop: open.signal, done: open.close, afterSeq });
  }
  const waiting = streams.acquireWait(key.workspaceId);
  return waitAnswer(async (signal) => executionView(await engine.wait(id, { timeoutMs: (LONGEST_RUN_SECONDS + WAIT_GRACE_SECONDS) * 1000, signal })), waiting);
};
