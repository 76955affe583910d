import { z } from 'zod';
import { env } from '../../../platform/env.js';
import { configuredProviders, PROVIDERS, type Provider } from '../../../modules/models/registry';
import { apiProcedure, router, userProcedure } from '../init';

// Which model providers this server can call: GET /v1/models for programs (before they create
// an agent), and `providers` for the dashboard's model picker (with what turns each on).
// Test-mode executions run on the sandbox unless TEST_MODE_REAL_MODELS.

const EXAMPLES: Record<Provider, string[]> = {
  sandbox: ['sandbox/echo', 'sandbox/slow'],
  openai: ['openai/gpt-4o-mini', 'openai/gpt-4.1'],
  anthropic: ['anthropic/claude-sonnet-4-5', 'anthropic/claude-haiku-4-5'],
  'openai-compatible': ['openai-compatible/llama3.1'],
};

/** The environment variable that turns a provider on (null: always available). */
const ENABLED_BY: Record<Provider, string | null> = {
  sandbox: null,
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_BASE_URL',
};

const providersOutput = z.object({
  providers: z.array(
    z.object({
      id: z.enum(PROVIDERS),
      configured: z.boolean(),
      examples: z.array(z.string()),
      enabledBy: z.string().nullable(),
    }),
  ),
  /** Whether test-mode executions call real providers (else they run on the sandbox). */
  testModeRealModels: z.boolean(),
});

const modelProviderSchema = z
  .object({
    provider: z.enum(PROVIDERS).meta({ description: 'What an agent’s `model` starts with, before the slash.', example: 'openai' }),
    configured: z.boolean().meta({
      description:
        'Whether this server can call the provider (the operator has set its credentials); `sandbox` always can. ' +
        'An agent of an unconfigured provider can be created, but its live executions fail with `model_provider_unavailable`. ' +
        'Test-mode executions run on the offline sandbox whatever the provider, unless the operator lets them use real ones.',
      example: true,
    }),
    examples: z.array(z.string()).meta({ description: 'Values of `model` for this provider (`<provider>/<model>`).', example: ['openai/gpt-4o-mini', 'openai/gpt-4.1'] }),
  })
  .meta({ id: 'ModelProvider' });

const modelListSchema = z.object({ data: z.array(modelProviderSchema) }).meta({ id: 'ModelList' });

export const modelsRouter = router({
  list: apiProcedure
    .meta({
      scope: 'agents:read',
      openapi: {
        method: 'GET',
        path: '/v1/models',
        tags: ['Models'],
        summary: 'List model providers',
        description: 'Every provider this server knows, whether it is configured here, and example `model` values: what will run before you create an agent. Not paginated.',
        successDescription: 'Every provider, the sandbox first',
      },
    })
    .input(z.strictObject({}))
    .output(modelListSchema)
    .query(() => {
      const configured = new Set(configuredProviders());
      return { data: PROVIDERS.map((provider) => ({ provider, configured: configured.has(provider), examples: EXAMPLES[provider] })) };
    }),

  /** Dashboard only: the same, with the variable that turns each provider on. */
  providers: userProcedure.output(providersOutput).query(() => {
    const configured = new Set(configuredProviders());
    return {
      providers: PROVIDERS.map((id) => ({ id, configured: configured.has(id), examples: EXAMPLES[id], enabledBy: ENABLED_BY[id] })),
      testModeRealModels: env.TEST_MODE_REAL_MODELS,
    };
  }),
});
