import { eventSchema } from '../../../modules/events/schemas';
import { PAGE_ERRORS } from '../../../platform/pagination';
import {
  createdWebhookSchema,
  createWebhookInput,
  deletedWebhookSchema,
  deliveryListSchema,
  deliverySchema,
  listDeliveriesInput,
  listWebhooksInput,
  resendInput,
  rotatedWebhookSchema,
  updateWebhookInput,
  webhookIdInput,
  webhookListSchema,
  webhookSchema,
} from '../../../modules/webhooks/schemas';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  resendDelivery,
  rotateSecret,
  sendTestEvent,
  updateWebhook,
} from '../../../modules/webhooks/service';
import { apiProcedure, router } from '../init';

const tags = ['Webhooks'];
const scope = 'webhooks:manage';

export const webhooksRouter = router({
  create: apiProcedure
    .meta({
      scope,
      successStatus: 201,
      errors: ['webhook_limit_reached'],
      openapi: {
        method: 'POST',
        path: '/v1/webhooks',
        tags,
        summary: 'Create a webhook',
        description: 'Events of this environment of the types given are POSTed to `url`, signed the Standard Webhooks way with the secret returned here.',
        successDescription: 'The new webhook, with its signing secret (shown once)',
      },
    })
    .input(createWebhookInput)
    .output(createdWebhookSchema)
    .mutation(({ ctx, input }) => createWebhook(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({
      scope,
      errors: PAGE_ERRORS,
      openapi: { method: 'GET', path: '/v1/webhooks', tags, summary: 'List webhooks', successDescription: 'Webhooks of this workspace and environment, newest first' },
    })
    .input(listWebhooksInput)
    .output(webhookListSchema)
    .query(({ ctx, input }) => listWebhooks(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({
      scope,
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/webhooks/{id}', tags, summary: 'Retrieve a webhook', successDescription: 'The webhook' },
    })
    .input(webhookIdInput)
    .output(webhookSchema)
    .query(({ ctx, input }) => getWebhook(ctx.db, ctx.actor, input.id)),

  update: apiProcedure
    .meta({
      scope,
      errors: ['resource_not_found'],
      openapi: {
        method: 'PATCH',
        path: '/v1/webhooks/{id}',
        tags,
        summary: 'Update a webhook',
        description: 'Changes the fields given and keeps the others. `enabled: true` also re-enables a webhook disabled for failing or for a 410.',
        successDescription: 'The updated webhook',
      },
    })
    .input(updateWebhookInput)
    .output(webhookSchema)
    .mutation(({ ctx, input: { id, ...fields } }) => updateWebhook(ctx.db, ctx.actor, id, fields)),

  delete: apiProcedure
    .meta({
      scope,
      errors: ['resource_not_found'],
      openapi: {
        method: 'DELETE',
        path: '/v1/webhooks/{id}',
        tags,
        summary: 'Delete a webhook',
        description: 'Nothing more is sent to it, pending retries included; its delivery log goes with it.',
        successDescription: 'The webhook is deleted',
      },
    })
    .input(webhookIdInput)
    .output(deletedWebhookSchema)
    .mutation(({ ctx, input }) => deleteWebhook(ctx.db, ctx.actor, input.id)),

  rotateSecret: apiProcedure
    .meta({
      scope,
      errors: ['resource_not_found'],
      openapi: {
        method: 'POST',
        path: '/v1/webhooks/{id}/rotate-secret',
        tags,
        summary: 'Rotate a webhook’s secret',
        description: 'A new secret signs from now on; for 24 h the previous one signs too (`webhook-signature` then carries both signatures).',
        successDescription: 'The webhook, with its new secret (shown once)',
      },
    })
    .input(webhookIdInput)
    .output(rotatedWebhookSchema)
    .mutation(({ ctx, input }) => rotateSecret(ctx.db, ctx.actor, input.id)),

  deliveries: apiProcedure
    .meta({
      scope,
      errors: ['resource_not_found', ...PAGE_ERRORS],
      openapi: {
        method: 'GET',
        path: '/v1/webhooks/{id}/deliveries',
        tags,
        summary: 'List a webhook’s deliveries',
        description: 'One delivery per event sent to the webhook, with every attempt (time, HTTP status, latency, error, first 1 KB of the answer).',
        successDescription: 'Deliveries of the webhook, newest first',
      },
    })
    .input(listDeliveriesInput)
    .output(deliveryListSchema)
    .query(({ ctx, input: { id, ...params } }) => listDeliveries(ctx.db, ctx.actor, id, params)),

  test: apiProcedure
    .meta({
      scope,
      successStatus: 202,
      errors: ['resource_not_found', 'webhook_disabled'],
      openapi: {
        method: 'POST',
        path: '/v1/webhooks/{id}/test',
        tags,
        summary: 'Send a test event',
        description: 'Sends a `webhook.test` event (its object: the webhook) to this webhook only; see it in the delivery log.',
        successDescription: 'The test event, queued for delivery',
      },
    })
    .input(webhookIdInput)
    .output(eventSchema)
    .mutation(({ ctx, input }) => sendTestEvent(ctx.db, ctx.actor, input.id)),

  resend: apiProcedure
    .meta({
      scope,
      successStatus: 202,
      errors: ['resource_not_found', 'webhook_disabled'],
      openapi: {
        method: 'POST',
        path: '/v1/webhooks/{id}/deliveries/{deliveryId}/resend',
        tags,
        summary: 'Resend a delivery',
        description: 'Sends the delivery’s event again now, with the same `webhook-id`; a failed delivery becomes pending again.',
        successDescription: 'The delivery, pending',
      },
    })
    .input(resendInput)
    .output(deliverySchema)
    .mutation(({ ctx, input }) => resendDelivery(ctx.db, ctx.actor, input.id, input.deliveryId)),
});
