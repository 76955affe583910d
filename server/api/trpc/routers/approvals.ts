import { z } from 'zod';
import { ApiError } from '../../../platform/errors';
import { assertSafeKeys } from '../../../platform/metadata';
import { executionView } from '../../../modules/executions/engine';
import { decideInput, executionSchema } from '../../../modules/executions/schemas';
import { apiProcedure } from '../init';
import { WAIT_GRACE_SECONDS } from './execute';

// POST /v1/executions/{id}/approvals, and the dashboard's Approve / Deny (docs/approvals.md).
// Like execute: 200 with the execution at once, or with `wait` the execution once final or
// paused again, or with `stream` its events from these decisions on (through ctx.reply).

/** The longest an agent's run may take (agents' `timeoutSeconds` at most): how long `wait` waits, plus the grace. */
const LONGEST_RUN_SECONDS = 900;

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
    const { actor, reply } = ctx;
    const { engine, streams } = ctx.services;
    if (wait && stream) throw new ApiError('parameter_conflict', "'wait' and 'stream' cannot both be true", { param: 'stream' });
    const long = wait ? 'wait' : stream ? 'stream' : null;
    if (long && !reply) throw new ApiError('invalid_parameter', `'${long}' is for the REST API: follow the execution’s stream instead`, { param: long });
    const open = long === 'stream' && actor.kind === 'key' ? await streams.acquire({ kind: 'key', id: actor.keyId, workspaceId: actor.workspaceId }) : null;
    const waiting = long === 'wait' ? streams.acquireWait(actor.workspaceId) : null;
    // Listening before the decisions are written: the resumed run's end is never missed.
    const watch = long === 'wait' ? engine.watch(id) : undefined;
    let decided: Awaited<ReturnType<typeof engine.decide>>;
    try {
      decided = await engine.decide(actor, id, decisions);
    } catch (err) {
      watch?.close();
      open?.close();
      waiting?.();
      throw err;
    }
    const { row, afterSeq } = decided;
    if (open) reply!.stream(row.id, { stop: open.signal, done: open.close, afterSeq });
    else if (waiting) {
      reply!.wait(
        row.id,
        async (signal) => executionView(await engine.wait(row.id, { timeoutMs: (LONGEST_RUN_SECONDS + WAIT_GRACE_SECONDS) * 1000, signal, watch })),
        waiting,
      );
    }
    return executionView(row);
  });
