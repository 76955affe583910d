import { assertSafeAgentInput, createAgent, deleteAgent, getAgent, listAgents, rotateToolSecret, updateAgent } from '../../../modules/agents/service';
import {
  agentIdInput,
  agentListSchema,
  agentSchema,
  createAgentInput,
  createdAgentSchema,
  deletedAgentSchema,
  listAgentsInput,
  rotatedAgentSchema,
  updateAgentInput,
} from '../../../modules/agents/schemas';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { apiProcedure, router } from '../init';
import { agentVersionProcedures } from './agent-versions';

const tags = ['Agents'];

/** Checks on the raw input that zod cannot make (service.ts), before it parses; an ApiError reports itself. */
const safeInput = apiProcedure.use(async ({ getRawInput, next }) => {
  assertSafeAgentInput(await getRawInput().catch(() => undefined));
  return next();
});

export const agentsRouter = router({
  create: safeInput
    .meta({
      scope: 'agents:write',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/v1/agents',
        tags,
        summary: 'Create an agent',
        successDescription: 'The new agent, with the secret that signs its tool calls (shown once)',
      },
    })
    .input(createAgentInput)
    .output(createdAgentSchema)
    .mutation(({ ctx, input }) => createAgent(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: PAGE_ERRORS,
      openapi: { method: 'GET', path: '/v1/agents', tags, summary: 'List agents', successDescription: 'Agents of this workspace and environment, newest first' },
    })
    .input(listAgentsInput)
    .output(agentListSchema)
    .query(({ ctx, input }) => listAgents(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/agents/{id}', tags, summary: 'Retrieve an agent', successDescription: 'The agent' },
    })
    .input(agentIdInput)
    .output(agentSchema)
    .query(({ ctx, input }) => getAgent(ctx.db, ctx.actor, input.id)),

  update: safeInput
    .meta({
      scope: 'agents:write',
      errors: ['resource_not_found'],
      openapi: {
        method: 'PATCH',
        path: '/v1/agents/{id}',
        tags,
        summary: 'Update an agent',
        description: 'Changes the fields given and keeps the others; `tools` and `metadata` are replaced whole. `null` clears `description`, `instructions` and `temperature`.',
        successDescription: 'The updated agent',
      },
    })
    .input(updateAgentInput)
    .output(agentSchema)
    .mutation(({ ctx, input: { id, ...fields } }) => updateAgent(ctx.db, ctx.actor, id, fields)),

  rotateToolSecret: apiProcedure
    .meta({
      scope: 'agents:write',
      errors: ['resource_not_found'],
      openapi: {
        method: 'POST',
        path: '/v1/agents/{id}/rotate-tool-secret',
        tags,
        summary: 'Rotate an agent’s tool secret',
        description:
          'A new secret signs the agent’s tool calls from now on; for 24 h the previous one signs too (`webhook-signature` then ' +
          'carries both signatures), so the tools can move to the new secret without refusing a call.',
        successDescription: 'The agent, with its new tool secret (shown once)',
      },
    })
    .input(agentIdInput)
    .output(rotatedAgentSchema)
    .mutation(({ ctx, input }) => rotateToolSecret(ctx.db, ctx.actor, input.id)),

  delete: apiProcedure
    .meta({
      scope: 'agents:write',
      errors: ['resource_not_found'],
      openapi: {
        method: 'DELETE',
        path: '/v1/agents/{id}',
        tags,
        summary: 'Delete an agent',
        description: 'Its queued and running executions are cancelled; its past executions and conversations stay readable.',
        successDescription: 'The agent is deleted',
      },
    })
    .input(agentIdInput)
    .output(deletedAgentSchema)
    .mutation(({ ctx, input }) => deleteAgent(ctx.db, ctx.actor, input.id)),
  ...agentVersionProcedures,
});
