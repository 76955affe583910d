import { z } from 'zod';
import { env } from '../../env.js';
import { configuredProviders, PROVIDERS, type Provider } from '../../models/registry';
import { router, userProcedure } from '../init';

// Dashboard only (no OpenAPI meta): which model providers this server can call, for the agent
// form's model picker. Test-mode executions run on the sandbox unless TEST_MODE_REAL_MODELS.

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

export const modelsRouter = router({
  providers: userProcedure.output(providersOutput).query(() => {
    const configured = new Set(configuredProviders());
    return {
      providers: PROVIDERS.map((id) => ({ id, configured: configured.has(id), examples: EXAMPLES[id], enabledBy: ENABLED_BY[id] })),
      testModeRealModels: env.TEST_MODE_REAL_MODELS,
    };
  }),
});
