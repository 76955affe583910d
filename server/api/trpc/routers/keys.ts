import { createKey, listKeys, revokeKey } from '../../../modules/keys/service';
import { createdKeySchema, createKeyInput, keyIdInput, keyListSchema, listKeysInput, revokedKeySchema } from '../../../modules/keys/schemas';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { apiProcedure, router } from '../init';

const tags = ['API keys'];

export const keysRouter = router({
  create: apiProcedure
    .meta({
      scope: 'keys:manage',
      successStatus: 201,
      errors: ['environment_mismatch'],
      openapi: { method: 'POST', path: '/v1/keys', tags, summary: 'Create an API key', successDescription: 'The new key, with its secret (shown once)' },
    })
    .input(createKeyInput)
    .output(createdKeySchema)
    .mutation(({ ctx, input }) => createKey(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({
      scope: 'keys:manage',
      errors: PAGE_ERRORS,
      openapi: { method: 'GET', path: '/v1/keys', tags, summary: 'List API keys', successDescription: 'Active keys of this workspace and environment, newest first' },
    })
    .input(listKeysInput)
    .output(keyListSchema)
    .query(({ ctx, input }) => listKeys(ctx.db, ctx.actor, input)),

  revoke: apiProcedure
    .meta({
      scope: 'keys:manage',
      errors: ['resource_not_found'],
      openapi: { method: 'DELETE', path: '/v1/keys/{id}', tags, summary: 'Revoke an API key', successDescription: 'The key is revoked, immediately and for good' },
    })
    .input(keyIdInput)
    .output(revokedKeySchema)
    .mutation(({ ctx, input }) => revokeKey(ctx.db, ctx.actor, input.id)),
});
