import { sendJson } from '../http/send';
import { buildOpenApiDocument } from '../openapi';
import type { RawRoute } from './routes';

// Routes that write their own response. They pass the pipeline's checks first (route, auth,
// rate limit, scope); streaming executions and 200/202-by-input routes join this list.

let openapi: string | undefined;

export const RAW_ROUTES: RawRoute[] = [
  {
    method: 'GET',
    template: '/v1/openapi.json',
    auth: false,
    async handle({ res }) {
      openapi ??= JSON.stringify(buildOpenApiDocument());
      sendJson(res, 200, openapi);
    },
  },
];
