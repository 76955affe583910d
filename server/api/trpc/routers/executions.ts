import { deleteConversation, getConversation, getExecution, listConversations, listExecutions } from '../../../modules/executions/service';
import {
  conversationListSchema,
  conversationSchema,
  deletedConversationSchema,
  executionListSchema,
  executionSchema,
  idInput,
  listConversationsInput,
  listExecutionsInput,
} from '../../../modules/executions/schemas';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { traceSchema } from '../../../modules/traces/schemas';
import { getTrace } from '../../../modules/traces/service';
import { apiProcedure, router } from '../init';
import { approvals } from './approvals';
import { execute } from './execute';
import { replay } from './replay';

const tags = ['Executions'];

export const executionsRouter = router({
  list: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: PAGE_ERRORS,
      openapi: { method: 'GET', path: '/v1/executions', tags, summary: 'List executions', successDescription: 'Executions of this workspace and environment, newest first' },
    })
    .input(listExecutionsInput)
    .output(executionListSchema)
    .query(({ ctx, input }) => listExecutions(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/executions/{id}', tags, summary: 'Retrieve an execution', successDescription: 'The execution' },
    })
    .input(idInput)
    .output(executionSchema)
    .query(({ ctx, input }) => getExecution(ctx.db, ctx.actor, input.id)),

  trace: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: ['resource_not_found'],
      openapi: {
        method: 'GET',
        path: '/v1/executions/{id}/trace',
        tags,
        summary: 'Retrieve an execution’s trace',
        description:
          'The spans of the run: the root `execution`, the time queued, each model call (first-token time, tokens, cost), each tool call and each wait for approval, with OpenTelemetry GenAI attributes. Complete once the execution is final; while it runs, every span that has ended (read from any process).',
        successDescription: 'The trace',
      },
    })
    .input(idInput)
    .output(traceSchema)
    .query(({ ctx, input }) => getTrace(ctx.db, ctx.actor, input.id, (id) => ctx.services.engine.catchUp(id))),

  cancel: apiProcedure
    .meta({
      scope: 'agents:execute',
      errors: ['resource_not_found', 'execution_not_cancellable', 'idempotency_conflict'],
      openapi: {
        method: 'POST',
        path: '/v1/executions/{id}/cancel',
        tags,
        summary: 'Cancel an execution',
        description:
          'A queued, running or paused (`requires_action`) execution becomes `cancelled` at once; a model or tool call in flight is aborted, in whichever process runs it; calls awaiting approval never run.',
        successDescription: 'The cancelled execution',
      },
    })
    .input(idInput)
    .output(executionSchema)
    .mutation(({ ctx, input }) => ctx.services.engine.cancel(ctx.actor, input.id)),

  execute,
  approvals,
  replay,
});

const conversationTags = ['Conversations'];

export const conversationsRouter = router({
  list: apiProcedure
    .meta({
      scope: 'agents:execute',
      errors: PAGE_ERRORS,
      openapi: {
        method: 'GET',
        path: '/v1/conversations',
        tags: conversationTags,
        summary: 'List conversations',
        description: 'Without their messages (`GET /v1/conversations/{id}` has them); each with how many it holds and when the last was written.',
        successDescription: 'Conversations of this workspace and environment, newest first',
      },
    })
    .input(listConversationsInput)
    .output(conversationListSchema)
    .query(({ ctx, input }) => listConversations(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({
      scope: 'agents:execute',
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/conversations/{id}', tags: conversationTags, summary: 'Retrieve a conversation', successDescription: 'The conversation with its messages in order' },
    })
    .input(idInput)
    .output(conversationSchema)
    .query(({ ctx, input }) => getConversation(ctx.db, ctx.actor, input.id)),

  delete: apiProcedure
    .meta({
      scope: 'agents:execute',
      errors: ['resource_not_found', 'conversation_busy'],
      openapi: { method: 'DELETE', path: '/v1/conversations/{id}', tags: conversationTags, summary: 'Delete a conversation', successDescription: 'The conversation and its messages are deleted' },
    })
    .input(idInput)
    .output(deletedConversationSchema)
    .mutation(({ ctx, input }) => deleteConversation(ctx.db, ctx.actor, input.id)),
});
