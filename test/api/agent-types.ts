// Response bodies of the agent endpoints, as a client reads them.

export interface AgentTool {
  type: 'http';
  name: string;
  description: string;
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  parameters: Record<string, unknown>;
  approval: 'never' | 'always';
}

export interface Agent {
  id: string;
  name: string;
  description: string | null;
  model: string;
  instructions: string | null;
  tools: AgentTool[];
  temperature: number | null;
  maxSteps: number;
  timeoutSeconds: number;
  maxTotalTokens: number | null;
  approvalTimeoutSeconds: number;
  traceContent: boolean;
  outputSchema: Record<string, unknown> | null;
  version: number;
  labels: Record<string, number>;
  metadata: Record<string, string>;
  environment: 'live' | 'test';
  createdAt: string;
  updatedAt: string;
}

export interface CreatedAgent extends Agent {
  toolSecret: string;
}

export interface AgentList {
  data: Agent[];
  hasMore: boolean;
  nextCursor?: string;
  prevCursor?: string;
}

export interface DeletedAgent {
  id: string;
  deleted: boolean;
}

export const AGENT_ID = /^agt_[0-9A-HJKMNP-TV-Z]{26}$/;

export const AGENT_FIELDS = [
  'approvalTimeoutSeconds',
  'createdAt',
  'description',
  'environment',
  'id',
  'instructions',
  'labels',
  'maxSteps',
  'maxTotalTokens',
  'metadata',
  'model',
  'name',
  'outputSchema',
  'temperature',
  'timeoutSeconds',
  'tools',
  'traceContent',
  'updatedAt',
  'version',
];

/** A valid HTTP tool (public IP literal: no DNS needed), with fields overridden. */
export function httpTool(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'http',
    name: 'lookup_order',
    description: 'Looks up an order',
    url: 'https://93.184.215.14/tool',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    ...overrides,
  };
}
