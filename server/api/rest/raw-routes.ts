import { streamRoute } from './execution-routes';
import { buildOpenApiDocument } from '../openapi';
import { appRouter } from '../trpc/router';
import { json } from './answer';
import type { RawRoute } from './routes';

// Routes that read their own input (a header) and answer a stream, and the public document.
// They pass the pipeline's checks first (route, auth, rate limit, scope), like every route.

let openapi: string | undefined;

export const RAW_ROUTES: RawRoute[] = [
  {
    method: 'GET',
    template: '/v1/openapi.json',
    auth: false,
    openapi: {
      operation: {
        operationId: 'openapi',
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of the whole API. Needs no key (limited per client address; with a valid key, counted against the key).',
        tags: ['Meta'],
        responses: { '200': { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    async handle() {
      openapi ??= JSON.stringify(buildOpenApiDocument(appRouter, RAW_ROUTES));
      return json(200, openapi);
    },
  },
  streamRoute,
];
