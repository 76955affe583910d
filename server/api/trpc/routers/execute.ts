import { z } from 'zod';
import { ApiError } from '../../../platform/errors';
import { newId } from '../../../platform/ids';
import { assertSafeKeys } from '../../../platform/metadata';
import { executionView, type Run } from '../../../modules/executions/engine';
import { executeInput, executionSchema } from '../../../modules/executions/schemas';
import { apiProcedure } from '../init';

// POST /v1/agents/{id}/execute, and the dashboard's playground: a procedure like the others.
// Without `wait` or `stream` it answers 202 with the execution at once. With either, it asks its
// REST edge for a long answer (ctx.reply: the event stream, or the execution once final), which
// an Idempotency-Key keeps as a marker the moment the execution exists; the procedure still
// returns the execution as created. The dashboard face has no `reply`: its runs start in place
// (the playground follows them at once) with the trigger `playground`.

/** How long `wait: true` waits beyond the agent's own timeout before answering with the execution as it is. */
export const WAIT_GRACE_SECONDS = 30;

/** zod drops a `__proto__` key of a record without a word: metadata's keys are checked on the raw input. */
const safeInput = apiProcedure.use(async ({ getRawInput, next }) => {
  assertSafeKeys(await getRawInput().catch(() => undefined), 'metadata');
  return next();
});

export const execute = safeInput
  .meta({
    scope: 'agents:execute',
    successStatus: 202,
    errors: ['resource_not_found', 'conversation_busy', 'parameter_conflict', 'idempotency_conflict'],
    eventStream: { description: '`wait: true`: the finished execution (or, past the agent’s timeout plus 30 s, as it is then). `stream: true`: the event stream.' },
    openapi: {
      method: 'POST',
      path: '/v1/agents/{id}/execute',
      operationId: 'agents-execute',
      tags: ['Executions'],
      summary: 'Execute an agent',
      description:
        'Runs the agent on `input`. By default answers 202 with the queued execution at once; `wait: true` answers 200 with the finished execution; `stream: true` answers with its events as they happen. Disconnecting never cancels the execution.',
      successDescription: 'Queued: poll `GET /v1/executions/{id}`, follow its stream, or wait for a webhook.',
    },
  })
  .input(executeInput.extend({ id: z.string().meta({ description: 'The agent to run.' }) }))
  .output(executionSchema)
  .mutation(async ({ ctx, input: { id: agentId, ...input } }) => {
    const { actor, reply } = ctx;
    const { engine, streams } = ctx.services;
    if (input.wait && input.stream) throw new ApiError('parameter_conflict', "'wait' and 'stream' cannot both be true", { param: 'stream' });
    const long = input.wait ? 'wait' : input.stream ? 'stream' : null;
    if (long && !reply) throw new ApiError('invalid_parameter', `'${long}' is for the REST API: follow the execution’s stream instead`, { param: long });
    if (!long && actor.kind === 'user') {
      // The playground follows its run at once: in place when it can.
      const { row } = await engine.start(actor, agentId, input, { inPlace: true, trigger: { type: 'playground' } });
      return executionView(row);
    }
    const id = newId('exe');
    // A stream counts against the key's open streams, a wait against the workspace's waiting
    // requests, before anything is created.
    const open = long === 'stream' && actor.kind === 'key' ? await streams.acquire({ kind: 'key', id: actor.keyId, workspaceId: actor.workspaceId }) : null;
    const waiting = long === 'wait' ? streams.acquireWait(actor.workspaceId) : null;
    // `wait: true` listens for the terminal event before the execution exists (never too late).
    const watch = long === 'wait' ? engine.watch(id) : undefined;
    let started: Run;
    try {
      // A caller that waits or streams is served fastest by a run in this process (no hand-over).
      started = await engine.start(actor, agentId, input, { id, inPlace: long !== null, ...(actor.kind === 'key' ? { keyId: actor.keyId } : {}), trace: actor.request?.trace ?? null });
    } catch (err) {
      watch?.close();
      open?.close();
      waiting?.();
      throw err;
    }
    const { row, timeoutSeconds, running, ahead = 0 } = started;
    if (open) reply!.stream(row.id, { stop: open.signal, done: open.close });
    else if (waiting) {
      reply!.wait(
        row.id,
        async (signal) => {
          // Run here: its outcome as recorded (unless another party ended it: then read it).
          const final = running ? await running : null;
          if (final) watch?.close();
          const done = final ?? (await engine.wait(row.id, { timeoutMs: (timeoutSeconds * (1 + ahead) + WAIT_GRACE_SECONDS) * 1000, signal, watch }));
          return executionView(done);
        },
        waiting,
      );
    }
    return executionView(row);
  });
