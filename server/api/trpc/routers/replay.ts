import { z } from 'zod';
import { newId } from '../../../platform/ids';
import { executionView } from '../../../modules/executions/engine';
import { executionSchema, replayInput } from '../../../modules/executions/schemas';
import { longAnswerOf, withLongAnswer } from '../long-answer';
import { safeInput, settleRun } from './execute';

// POST /v1/executions/{id}/replay (docs/traces.md, "Replay"): a new execution of a final one's
// agent, its steps before `fromStep` taken as recorded and the rest run live with the overrides;
// answered like execute (202 at once, or `wait` / `stream`: long-answer.ts).

export const replay = safeInput
  .meta({
    scope: 'agents:execute',
    successStatus: 202,
    errors: ['resource_not_found', 'execution_not_final', 'parameter_conflict', 'idempotency_conflict'],
    eventStream: { description: '`wait: true`: the finished replay (or, past the agent’s timeout plus 30 s, as it is then). `stream: true`: its event stream.' },
    openapi: {
      method: 'POST',
      path: '/v1/executions/{id}/replay',
      operationId: 'executions-replay',
      tags: ['Executions'],
      summary: 'Replay an execution',
      description:
        'A new execution of the same agent (`replayOf`): the steps before `fromStep` are taken from the original as recorded (no model call, no tool call, no cost), the rest runs live with `input`, `instructions` or `model` overridden. With `tools: "recorded"` (default) no tool is ever called: a call equal to one the original made (tool and arguments) gets its recorded result, any other `{"error":"not_recorded"}`. The original must be final; its conversation is not touched.',
      successDescription: 'Queued: the replay, like any execution.',
    },
  })
  .input(replayInput.extend({ id: z.string().meta({ description: 'The execution to replay (`exe_…`), final.' }) }))
  .output(executionSchema)
  .mutation(async ({ ctx, input: { id: original, ...input } }) => {
    const { actor } = ctx;
    const { engine } = ctx.services;
    const long = longAnswerOf(ctx, input);
    const id = newId('exe');
    const keyId = actor.kind === 'key' ? { keyId: actor.keyId } : {};
    // The dashboard's "Replay from here" follows its run at once, as the playground does.
    const trigger = actor.kind === 'user' ? { trigger: { type: 'playground' as const } } : {};
    const begin = () => engine.replay(actor, original, input, { id, inPlace: long !== null || actor.kind === 'user', ...keyId, ...trigger, trace: actor.request?.trace ?? null });
    const { row } = await withLongAnswer(ctx, long, id, begin, settleRun(engine));
    return executionView(row);
  });
