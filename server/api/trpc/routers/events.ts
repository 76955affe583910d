import { eventIdInput, eventListSchema, eventSchema, listEventsInput } from '../../../modules/events/schemas';
import { getEvent, listEvents } from '../../../modules/events/service';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { eventDeliveries } from '../../../modules/webhooks/service';
import { deliverySchema } from '../../../modules/webhooks/schemas';
import { z } from 'zod';
import { apiProcedure, router } from '../init';

const tags = ['Events'];
const scope = 'webhooks:manage';

export const eventsRouter = router({
  list: apiProcedure
    .meta({
      scope,
      errors: PAGE_ERRORS,
      openapi: {
        method: 'GET',
        path: '/v1/events',
        tags,
        summary: 'List events',
        description: 'Every event of the last 30 days in this environment, newest first: what webhooks were sent, to reconcile what you missed.',
        successDescription: 'Events, newest first',
      },
    })
    .input(listEventsInput)
    .output(eventListSchema)
    .query(({ ctx, input }) => listEvents(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({
      scope,
      errors: ['resource_not_found'],
      openapi: { method: 'GET', path: '/v1/events/{id}', tags, summary: 'Retrieve an event', successDescription: 'The event, exactly as webhooks receive it' },
    })
    .input(eventIdInput)
    .output(eventSchema)
    .query(({ ctx, input }) => getEvent(ctx.db, ctx.actor, input.id)),

  /** The dashboard's events page: an event's deliveries (not part of /v1). */
  deliveries: apiProcedure
    .meta({ scope, errors: ['resource_not_found'] })
    .input(eventIdInput)
    .output(z.array(deliverySchema))
    .query(({ ctx, input }) => eventDeliveries(ctx.db, ctx.actor, input.id)),
});
