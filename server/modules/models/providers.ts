// The model providers this service knows, and the longest `provider/model` it takes: the agent
// schema's bounds (which the dashboard's agent form imports, in the browser) without the providers' SDKs.

export const PROVIDERS = ['sandbox', 'openai', 'anthropic', 'openai-compatible'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const MAX_MODEL_LENGTH = 200;
