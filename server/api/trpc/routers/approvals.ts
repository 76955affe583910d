import { z } from 'zod';
import { assertSafeKeys } from '../../../platform/metadata';
import { executionView, LONGEST_RUN_SECONDS, WAIT_GRACE_SECONDS, type ExecutionRow, type Watch } from '../../../modules/executions/engine';
import { decideInput, executionSchema } from '../../../modules/executions/schemas';
import { apiProcedure } from '../init';
import { longAnswerOf, withLongAnswer } from '../long-answer';

// POST /v1/executions/{id}/approvals, and the dashboard's Approve / Deny (docs/approvals.md).
// Like execute: 200 with the execution at once, or with `wait` the execution once final or
// paused again, or with `stream` its events from these decisions on (execute's handling: long-answer.ts).

/**
 * zod drops a top-level `__proto__` key of a record without a word: edited arguments would run
 * without it. Their keys are checked on the raw input (as metadata's are), 400 naming the field.
 */
const safeArguments = apiProcedure.use(async ({ getRawInput, next }) => {
  const raw = (await getRawInput().catch(() => undefined)) as { decisions?: unknown } | undefined;
  if (Array.isArray(raw?.decisions)) raw.decisions.forEach((d, n) => assertSafeKeys(d, 'arguments', `decisions.${n}.arguments`));
  return next();
});

export const approvals = safeArguments
  .meta({
    scope: 'agents:execute',
    errors: ['resource_not_found', 'execution_not_awaiting_approval', 'tool_call_already_decided', 'approval_expired', 'parameter_conflict', 'idempotency_conflict'],
    eventStream: { description: '`wait: true`: the execution once final or paused again. `stream: true`: its events from these decisions on.' },
    openapi: {
      method: 'POST',
      path: '/v1/executions/{id}/approvals',
      operationId: 'executions-approvals',
      tags: ['Executions'],
      summary: 'Approve or deny tool calls',
      description:
        'Decides tool calls an execution in `requires_action` awaits (`requiredAction.toolCalls`). An approved call runs exactly once, with the given `arguments` if any; a denied one is answered to the model as `{"denied": true, "reason": …}`. Decisions may come in several requests; once none is left the execution is `queued` again and resumes where it paused.',
      successDescription: 'The execution: `queued` when it resumes, still `requires_action` while calls await a decision.',
    },
  })
  .input(decideInput.extend({ id: z.string().meta({ description: 'The execution (`exe_…`).' }) }))
  .output(executionSchema)
  .mutation(async ({ ctx, input: { id, decisions, wait, stream } }) => {
    const { engine } = ctx.services;
    const long = longAnswerOf(ctx, { wait, stream });
    // A wait listens before the decisions are written: the resumed run's end is never missed.
    const settle = ({ row }: { row: ExecutionRow }, signal: AbortSignal, watch: Watch | undefined) =>
      engine.wait(row.id, { timeoutMs: (LONGEST_RUN_SECONDS + WAIT_GRACE_SECONDS) * 1000, signal, watch });
    const { row } = await withLongAnswer(ctx, long, id, () => engine.decide(ctx.actor, id, decisions), settle);
    return executionView(row);
  });
