import { findAgent, type AgentView } from '../../../modules/agents/service';
import { moveLabel, removeLabel } from '../../../modules/agents/labels';
import { getVersion, listVersions } from '../../../modules/agents/versions';
import { agentVersionListSchema, agentVersionSchema, getVersionInput, labelInput, listVersionsInput, moveLabelInput } from '../../../modules/agents/version-schemas';
import { agentSchema } from '../../../modules/agents/schemas';
import { readsWholeUrls } from '../../../modules/secrets/stored';
import { ApiError, notFound } from '../../../platform/errors';
import { PAGE_ERRORS } from '../../../platform/pagination';
import type { Actor } from '../../../modules/actor';
import type { Db } from '../../../../db/client';
import { apiProcedure } from '../init';

// An agent's versions and labels (docs/versions.md): GET /v1/agents/{id}/versions[/{version}],
// PUT and DELETE /v1/agents/{id}/labels/{label}.

const tags = ['Agents'];
const whole = (actor: Actor) => readsWholeUrls(actor, 'agents:write');

/** The agent's id once it is the caller's (404 otherwise, as for the agent itself). */
async function ownAgent(db: Db, actor: Actor, id: string): Promise<string> {
  const row = await findAgent(db, actor, id);
  if (!row) throw notFound('agent', id);
  return row.id;
}

export const agentVersionProcedures = {
  versions: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: ['resource_not_found', ...PAGE_ERRORS],
      openapi: { method: 'GET', path: '/v1/agents/{id}/versions', operationId: 'agents-listVersions', tags, summary: 'List an agent’s versions', successDescription: 'Its versions, newest first' },
    })
    .input(listVersionsInput)
    .output(agentVersionListSchema)
    .query(async ({ ctx, input: { id, ...page } }) => listVersions(ctx.db, await ownAgent(ctx.db, ctx.actor, id), page, whole(ctx.actor))),

  version: apiProcedure
    .meta({
      scope: 'agents:read',
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/agents/{id}/versions/{version}', operationId: 'agents-retrieveVersion', tags, summary: 'Retrieve a version of an agent', successDescription: 'The version' },
    })
    .input(getVersionInput)
    .output(agentVersionSchema)
    .query(async ({ ctx, input }) => {
      const found = await getVersion(ctx.db, await ownAgent(ctx.db, ctx.actor, input.id), input.version, whole(ctx.actor));
      if (!found) throw new ApiError('resource_not_found', `The agent has no version ${input.version}`, { param: 'version' });
      return found;
    }),

  moveLabel: apiProcedure
    .meta({
      scope: 'agents:write',
      errors: ['resource_not_found'],
      openapi: {
        method: 'PUT',
        path: '/v1/agents/{id}/labels/{label}',
        operationId: 'agents-moveLabel',
        tags,
        summary: 'Point a label at a version',
        description:
          'Creates or moves a label (at most 20 an agent). Executions started from the answer on, in every process, run the version it points at. `production` runs by default and follows the latest version until moved; `"latest"` makes a label follow again. Rolling back is moving `production` to an older version.',
        successDescription: 'The agent, with its labels',
      },
    })
    .input(moveLabelInput)
    .output(agentSchema)
    .mutation(({ ctx, input }): Promise<AgentView> => moveLabel(ctx.db, ctx.actor, input.id, input.label, input.version, whole(ctx.actor))),

  removeLabel: apiProcedure
    .meta({
      scope: 'agents:write',
      errors: ['resource_not_found'],
      openapi: { method: 'DELETE', path: '/v1/agents/{id}/labels/{label}', operationId: 'agents-removeLabel', tags, summary: 'Remove a label', description: 'Any label but `production`.', successDescription: 'The agent, with its labels' },
    })
    .input(labelInput)
    .output(agentSchema)
    .mutation(({ ctx, input }) => removeLabel(ctx.db, ctx.actor, input.id, input.label, whole(ctx.actor))),
};
