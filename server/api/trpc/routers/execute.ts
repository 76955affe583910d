import { z } from 'zod';
import { newId } from '../../../platform/ids';
import { assertSafeKeys } from '../../../platform/metadata';
import { assertNoProtoKey } from '../../../modules/vocabulary/output-schema';
import { executionView, WAIT_GRACE_SECONDS, type Engine, type Run, type Watch } from '../../../modules/executions/engine';
import { executeInput, executionSchema } from '../../../modules/executions/schemas';
import { apiProcedure } from '../init';
import { longAnswerOf, withLongAnswer } from '../long-answer';

// POST /v1/agents/{id}/execute, and the dashboard's playground: a procedure like the others.
// Without `wait` or `stream` it answers 202 with the execution at once. With either (declared by
// its meta `eventStream`), its REST edge answers long (long-answer.ts: the event stream, or the
// execution once final), which an Idempotency-Key keeps as a marker the moment the execution
// exists; the procedure still returns the execution as created. The dashboard face has no `reply`: its runs start in place
// (the playground follows them at once) with the trigger `playground`.

/** zod drops a `__proto__` key of a record without a word: metadata's keys are checked on the raw input. */
export const safeInput = apiProcedure.use(async ({ getRawInput, next }) => {
  const raw = await getRawInput().catch(() => undefined);
  assertSafeKeys(raw, 'metadata');
  if (raw !== null && typeof raw === 'object') assertNoProtoKey((raw as { outputSchema?: unknown }).outputSchema);
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
    const { actor } = ctx;
    const { engine } = ctx.services;
    const long = longAnswerOf(ctx, input);
    if (!long && actor.kind === 'user') {
      // The playground follows its run at once: in place when it can.
      const { row } = await engine.start(actor, agentId, input, { inPlace: true, trigger: { type: 'playground' } });
      return executionView(row);
    }
    const id = newId('exe');
    // A caller that waits or streams is served fastest by a run in this process (no hand-over).
    const begin = () => engine.start(actor, agentId, input, { id, inPlace: long !== null, ...(actor.kind === 'key' ? { keyId: actor.keyId } : {}), trace: actor.request?.trace ?? null });
    const { row } = await withLongAnswer(ctx, long, id, begin, settleRun(engine));
    return executionView(row);
  });

/** What a `wait` on a started run answers: its outcome as recorded when it ran here, else the execution once final (or past its timeout, its place in line and the grace). */
export const settleRun =
  (engine: Engine) =>
  async ({ row, running, timeoutSeconds, ahead = 0 }: Run, signal: AbortSignal, watch: Watch | undefined) => {
    const final = running ? await running : null;
    if (final) {
      watch?.close();
      return final;
    }
    return engine.wait(row.id, { timeoutMs: (timeoutSeconds * (1 + ahead) + WAIT_GRACE_SECONDS) * 1000, signal, watch });
  };
