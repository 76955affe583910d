import { z } from 'zod';
import { ENVIRONMENTS } from '../../../db/schema/values';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';
import { ALL_EVENT_TYPES, EVENT_RETENTION_DAYS } from '../vocabulary/event-types';

// Request and response shapes of /v1/events (docs/webhooks.md, "The contract"). An event as listed
// is exactly the body a webhook receives.

export const EXAMPLE_EVENT_ID = 'evt_01JD8X41B2C3D4E5F6G7H8J9KA';
const EXAMPLE_AGENT = {
  id: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK',
  name: 'Order support',
  description: null,
  model: 'openai/gpt-4o-mini',
  instructions: 'You are a friendly support agent.',
  tools: [],
  temperature: null,
  maxSteps: 5,
  timeoutSeconds: 120,
  metadata: {},
  environment: 'live',
  createdAt: '2026-11-21T20:31:07.123Z',
  updatedAt: '2026-11-21T20:31:07.123Z',
};

export const eventSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier of the event (`evt_…`); also the `webhook-id` header of its deliveries.', example: EXAMPLE_EVENT_ID }),
    type: z.enum(ALL_EVENT_TYPES).meta({ description: 'What happened.', example: 'agent.created' }),
    createdAt: z.string().meta({ format: 'date-time', description: 'When the change happened.', example: '2026-11-21T20:31:07.123Z' }),
    environment: z.enum(ENVIRONMENTS).meta({ example: 'live' }),
    data: z.object({
      object: z.object({}).catchall(z.unknown()).meta({
        description:
          'The resource as the REST API shows it at that moment (an agent, an execution, an API key without its secret, a conversation). ' +
          'A deleted conversation is sent without its messages.',
        example: EXAMPLE_AGENT,
      }),
    }),
  })
  .meta({ id: 'Event' });

export const eventListSchema = pageEnvelopeSchema(eventSchema).meta({ id: 'EventList' });

export const listEventsInput = z.strictObject({
  ...pageQuerySchema,
  type: z
    .enum(ALL_EVENT_TYPES)
    .meta({ description: `Only events of this type. Events are kept ${EVENT_RETENTION_DAYS} days.`, example: 'execution.succeeded' })
    .optional(),
});

export const eventIdInput = z.strictObject({ id: z.string().meta({ description: 'The id of the event (`evt_…`).', example: EXAMPLE_EVENT_ID }) });
