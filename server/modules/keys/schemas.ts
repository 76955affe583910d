import { z } from 'zod';
import { ENVIRONMENTS } from '../../../db/schema/values';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';
import { DEFAULT_SCOPES, SCOPE_TABLE, scopeSchema } from '../vocabulary/scopes';

// Request and response shapes of /v1/keys. The descriptions and examples end up in
// /v1/openapi.json (and so in the /docs reference); they do not change validation.

const EXAMPLE_ID = 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK';
const EXAMPLE_CREATED_AT = '2026-11-21T20:31:07.123Z';
const EXAMPLE_EXPIRES_AT = '2027-05-21T00:00:00.000Z';
const EXAMPLE_SCOPES = ['agents:read', 'agents:execute'];

const timestamp = z.string().meta({ format: 'date-time', example: EXAMPLE_CREATED_AT });
const environment = z.enum(ENVIRONMENTS);
const scopeList = SCOPE_TABLE.map((s) => `\`${s.scope}\` (${s.description.toLowerCase()})`).join(', ');

export const createKeyInput = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .meta({ description: 'A name that tells you where the key is used, 1–100 characters.', example: 'Production backend' }),
    environment: environment.optional().meta({
      description: "`live` or `test`; it must be the calling key's own environment. Default: the caller's environment.",
      example: 'live',
    }),
    scopes: z
      .array(scopeSchema)
      .optional()
      .meta({
        description:
          `Scopes to grant: ${scopeList}. Default: ${DEFAULT_SCOPES.join(', ')}. ` +
          'A key can only grant scopes it holds itself.',
        example: EXAMPLE_SCOPES,
      }),
    expiresAt: z.iso.datetime({ offset: true }).optional().meta({
      description: 'When the key stops working (ISO 8601, in the future); after that it answers 401 `api_key_expired`. Default: never.',
      example: EXAMPLE_EXPIRES_AT,
    }),
  })
  .meta({ id: 'CreateKeyRequest' });

export const listKeysInput = z.strictObject(pageQuerySchema);

export const keyIdInput = z.strictObject({
  id: z.string().meta({ description: 'The id of the key to revoke.', example: EXAMPLE_ID }),
});

const keyFields = {
  id: z.string().meta({ description: 'Unique identifier of the key (`key_…`).', example: EXAMPLE_ID }),
  name: z.string().meta({ description: 'The name given at creation.', example: 'Production backend' }),
  prefix: z.string().meta({
    description: 'The first 16 characters of the secret, to recognise the key without revealing it.',
    example: 'svc_live_sk_kr5R',
  }),
  environment: environment.meta({ description: 'The environment whose data the key sees: `live` or `test`.', example: 'live' }),
  scopes: z.array(scopeSchema).meta({ description: 'What the key may do.', example: EXAMPLE_SCOPES }),
  expiresAt: timestamp.nullable().meta({ description: 'When the key stops working; `null`: never.', example: EXAMPLE_EXPIRES_AT }),
  createdAt: timestamp.meta({ description: 'When the key was created.', example: EXAMPLE_CREATED_AT }),
  createdBy: z
    .object({ type: z.enum(['user', 'key']), id: z.string() })
    .nullable()
    .meta({ description: 'Who made it: a member of the workspace (`usr_…`: the dashboard or the admin CLI) or another key (`key_…`).', example: { type: 'user', id: 'usr_01JD8X3ZQ2N6W5V4T3S2R1P0MK' } }),
};

export const keySchema = z
  .object({
    ...keyFields,
    lastUsed: timestamp.nullable().meta({
      description: 'When the key last authenticated a request; `null` until first use. May lag by up to 60 s.',
      example: '2026-11-22T09:14:52.480Z',
    }),
  })
  .meta({ id: 'ApiKey' });

export const createdKeySchema = z
  .object({
    ...keyFields,
    key: z.string().meta({
      description: 'The secret, to send as `Authorization: Bearer <key>`. Returned only in this response, never again: store it now.',
      // Shortened on purpose: a complete-looking secret in docs gets copied, and flagged as a leak.
      example: 'svc_live_sk_kr5R…',
    }),
  })
  .meta({ id: 'CreatedApiKey' });

export const keyListSchema = pageEnvelopeSchema(keySchema).meta({ id: 'ApiKeyList' });

export const revokedKeySchema = z
  .object({
    id: z.string().meta({ description: 'The id of the revoked key.', example: EXAMPLE_ID }),
    deleted: z.literal(true).meta({ description: 'Always `true`: the key no longer works.', example: true }),
    revokedAt: timestamp.meta({ description: 'When the key was revoked.', example: '2026-11-23T16:02:41.907Z' }),
  })
  .meta({ id: 'RevokedApiKey' });
