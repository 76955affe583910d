import { z } from 'zod';
import { ENVIRONMENTS } from '../../db/schema';
import { pageEnvelopeSchema, pageQuerySchema } from '../pagination';
import { SCOPE_TABLE, scopeSchema } from './scopes';

const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });
const environment = z.enum(ENVIRONMENTS);

export const createKeyInput = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ description: 'Descriptive name, 1–100 characters.' }),
    environment: environment.optional().meta({ description: "`live` or `test`. Default: the caller's environment." }),
    scopes: z
      .array(scopeSchema)
      .optional()
      .meta({
        description:
          'Scopes to grant. Default: ' +
          SCOPE_TABLE.filter((s) => s.isDefault)
            .map((s) => s.scope)
            .join(', ') +
          '. A key can only grant scopes it holds itself.',
      }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When the key stops working (ISO 8601, in the future). Default: never.' }),
  })
  .meta({ id: 'CreateKeyRequest' });

export const listKeysInput = z.strictObject(pageQuerySchema);

export const keyIdInput = z.strictObject({ id: z.string() });

const keyFields = {
  id: z.string().meta({ example: 'key_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }),
  name: z.string(),
  prefix: z.string().meta({ description: 'The first 16 characters of the key.', example: 'svc_live_sk_4fQx' }),
  environment,
  scopes: z.array(scopeSchema),
  expiresAt: timestamp.nullable(),
  createdAt: timestamp,
};

export const keySchema = z
  .object({ ...keyFields, lastUsed: timestamp.nullable().meta({ description: 'May lag by up to 60 s.' }) })
  .meta({ id: 'ApiKey' });

export const createdKeySchema = z
  .object({
    ...keyFields,
    key: z.string().meta({ description: 'The secret. Returned only in this response, never again.' }),
  })
  .meta({ id: 'CreatedApiKey' });

export const keyListSchema = pageEnvelopeSchema(keySchema).meta({ id: 'ApiKeyList' });

export const revokedKeySchema = z
  .object({ id: z.string(), deleted: z.literal(true), revokedAt: timestamp })
  .meta({ id: 'RevokedApiKey' });
