// Every operation /v1 serves today (method and path template): the route table and the OpenAPI
// document must both hold exactly these — nothing unbuilt, nothing dashboard-only.
export const BUILT_OPERATIONS = [
  'DELETE /v1/agents/{id}',
  'DELETE /v1/conversations/{id}',
  'DELETE /v1/keys/{id}',
  'GET /v1/agents',
  'GET /v1/agents/{id}',
  'GET /v1/conversations/{id}',
  'GET /v1/executions',
  'GET /v1/executions/{id}',
  'GET /v1/executions/{id}/stream',
  'GET /v1/keys',
  'GET /v1/openapi.json',
  'PATCH /v1/agents/{id}',
  'POST /v1/agents',
  'POST /v1/agents/{id}/execute',
  'POST /v1/executions/{id}/cancel',
  'POST /v1/keys',
];
