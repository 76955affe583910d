import { z } from 'zod';
import { DELIVERY_STATUSES, DISABLED_REASONS, ENVIRONMENTS } from '../../../db/schema/values';
import { EXAMPLE_EVENT_ID } from '../events/schemas';
import { ALL_EVENT_TYPES, EVENT_TYPES } from '../vocabulary/event-types';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';

// Request and response shapes of /v1/webhooks (docs/webhooks.md, "The contract"). The descriptions
// and examples end up in /v1/openapi.json and the /docs reference.

const EXAMPLE_ID = 'whk_01JD8X42C3D4E5F6G7H8J9KAMB';
const EXAMPLE_DELIVERY = 'dlv_01JD8X43D4E5F6G7H8J9KAMBNC';
const EXAMPLE_URL = 'https://example.com/webhooks/agents';
const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });
/** Webhooks one workspace may have per environment (each event is delivered to every match). */
export const MAX_WEBHOOKS = 20;
export const MAX_DESCRIPTION = 500;

/** In a `u` regex a surrogate pair is one code point: this matches only a lone surrogate (stored as U+FFFD otherwise). */
const wellFormed = (schema: z.ZodString) => schema.refine((v) => !/\p{Cs}/u.test(v), 'must be valid Unicode text (it holds a lone surrogate)');

const url = wellFormed(z.string())
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters (tab, line break…)')
  .meta({
  description:
    'Where events are POSTed. `https` in live mode; no credentials; never a loopback, private, link-local or metadata address ' +
    '(checked now and again at each delivery). At most 2,048 characters. A URL holding a token (a query, a token-like path segment) ' +
    'is stored encrypted; sending back the masked form it was shown keeps it.',
  example: EXAMPLE_URL,
});
const eventList = z
  .array(z.string())
  .min(1)
  .max(EVENT_TYPES.length)
  .meta({
    description: `The event types to receive: any of ${EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}; or \`["*"]\` for all of them.`,
    example: ['execution.succeeded', 'execution.failed'],
  });
const description = wellFormed(z.string().max(MAX_DESCRIPTION))
  .nullable()
  .meta({ description: `What the endpoint is for (≤ ${MAX_DESCRIPTION} characters), or \`null\`.`, example: 'Order system' });

export const createWebhookInput = z
  .strictObject({
    url,
    events: eventList,
    description: description.default(null),
    enabled: z.boolean().default(true).meta({ description: '`false`: nothing is delivered until it is enabled. Default: `true`.', example: true }),
  })
  .meta({ id: 'CreateWebhookRequest' });

const webhookId = z.string().meta({ description: 'The id of the webhook (`whk_…`).', example: EXAMPLE_ID });
export const webhookIdInput = z.strictObject({ id: webhookId });

export const updateWebhookInput = z
  .strictObject({
    id: webhookId,
    url: url.optional(),
    events: eventList.optional(),
    description: description.optional(),
    enabled: z.boolean().optional().meta({ description: '`true` enables the endpoint again (also after it was disabled for failing); `false` pauses it.' }),
  })
  .meta({ description: 'The fields to change; the others keep their value.' });

export const listWebhooksInput = z.strictObject(pageQuerySchema);

export const webhookSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier of the webhook (`whk_…`).', example: EXAMPLE_ID }),
    url: z.string().meta({
      description:
        'Where events are POSTed. API keys, owners and admins read it whole; developers, viewers, events and the audit log see it with ' +
        'its credentials masked as `****` (the query, the fragment, user info, path segments that look like tokens).',
      example: EXAMPLE_URL,
    }),
    events: z.array(z.string()).meta({ description: 'The event types it receives; `["*"]`: all.', example: ['execution.succeeded'] }),
    description: z.string().nullable().meta({ example: 'Order system' }),
    enabled: z.boolean().meta({ description: 'Whether events are delivered to it.', example: true }),
    disabledReason: z.enum(DISABLED_REASONS).nullable().meta({
      description:
        'Why it is disabled: `manual` (you disabled it), `endpoint_gone` (it answered 410 Gone), `failing` (every attempt failed for days); `null` when enabled.',
      example: null,
    }),
    environment: z.enum(ENVIRONMENTS).meta({ description: 'Only events of this environment are sent to it.', example: 'live' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Webhook' });

const secret = z.string().meta({
  description:
    'The signing secret (Standard Webhooks: verify `webhook-signature` with it, e.g. with the `standardwebhooks` library). ' +
    'Returned only in this response, never again: store it now.',
  // Shortened on purpose: a complete-looking secret in docs gets copied, and flagged as a leak.
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw…',
});

export const createdWebhookSchema = z.object({ ...webhookSchema.shape, secret }).meta({ id: 'CreatedWebhook' });

export const rotatedWebhookSchema = z
  .object({
    ...webhookSchema.shape,
    secret,
    previousSecretExpiresAt: timestamp.meta({
      description:
        'Until then deliveries also carry a signature made with the previous secret (24 h). Now when this server could not open the ' +
        'previous secret (sealed under a key it no longer holds): it stopped at once.',
    }),
  })
  .meta({ id: 'RotatedWebhook' });

export const webhookListSchema = pageEnvelopeSchema(webhookSchema).meta({ id: 'WebhookList' });

export const deletedWebhookSchema = z
  .object({
    id: z.string().meta({ description: 'The id of the deleted webhook.', example: EXAMPLE_ID }),
    deleted: z.literal(true).meta({ description: 'Always `true`.', example: true }),
  })
  .meta({ id: 'DeletedWebhook' });

// ---- deliveries ----

const attemptSchema = z
  .object({
    attempt: z.number().int().meta({ description: '1 for the first attempt.', example: 1 }),
    at: timestamp.meta({ description: 'When the request was sent.' }),
    statusCode: z.number().int().nullable().meta({ description: 'The HTTP status of the answer; `null` when none came.', example: 200 }),
    latencyMs: z.number().int().meta({ description: 'Time until the answer (or the failure), in ms.', example: 84 }),
    error: z.string().nullable().meta({ description: 'Why the attempt failed; `null` on a 2xx.', example: null }),
    responseExcerpt: z.string().nullable().meta({ description: 'The first 1 KB of the answer’s body.', example: '{"received":true}' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const deliverySchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier of the delivery (`dlv_…`): one per event and webhook.', example: EXAMPLE_DELIVERY }),
    webhookId: z.string().meta({ example: EXAMPLE_ID }),
    eventId: z.string().meta({ description: 'The event delivered; also its `webhook-id` header.', example: EXAMPLE_EVENT_ID }),
    eventType: z.enum(ALL_EVENT_TYPES).meta({ example: 'execution.succeeded' }),
    status: z.enum(DELIVERY_STATUSES).meta({
      description: '`pending` (not delivered yet; retried on schedule), `succeeded` (a 2xx answer), `failed` (every attempt failed, or the webhook was disabled).',
      example: 'succeeded',
    }),
    nextAttemptAt: timestamp.nullable().meta({ description: 'When the next attempt is due, while `pending`.', example: null }),
    attempts: z.array(attemptSchema).meta({ description: 'The attempts so far, oldest first (the last 25 when there were more).' }),
    environment: z.enum(ENVIRONMENTS).meta({ example: 'live' }),
    createdAt: timestamp,
    completedAt: timestamp.nullable().meta({ description: 'When it succeeded or failed for good.' }),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryListSchema = pageEnvelopeSchema(deliverySchema).meta({ id: 'WebhookDeliveryList' });

export const listDeliveriesInput = z.strictObject({
  id: webhookId,
  ...pageQuerySchema,
  status: z.enum(DELIVERY_STATUSES).meta({ description: 'Only deliveries in this state.', example: 'failed' }).optional(),
});

export const resendInput = z.strictObject({
  id: webhookId,
  deliveryId: z.string().meta({ description: 'The delivery to send again (`dlv_…`).', example: EXAMPLE_DELIVERY }),
});
