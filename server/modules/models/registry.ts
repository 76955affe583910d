import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible';
import { APICallError, LoadAPIKeyError, RetryError, type LanguageModel } from 'ai';
import { env } from '../../platform/env.js';
import { MAX_MODEL_LENGTH, PROVIDERS, type Provider } from './providers';
import { fastCompatibleChat } from './compatible';
import { sandboxModel } from './sandbox';

// Which model an agent's `provider/model` string runs on. Providers are configured by the
// operator's environment (sandbox always; OpenAI, Anthropic and an OpenAI-compatible server when
// their variables are set); test-mode executions run on the sandbox unless
// TEST_MODE_REAL_MODELS is set. Model-call failures become a short error safe to show an API
// user: `model_provider_unavailable` (unreachable, refused credentials) or `model_error`.

export { MAX_MODEL_LENGTH, PROVIDERS, type Provider } from './providers';

export type ModelErrorCode = 'model_provider_unavailable' | 'model_error';

export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

/** `provider/modelId` (the id may hold `/` and `:`, no spaces), or null for a malformed or unknown one. */
export function parseModel(model: string): { provider: Provider; modelId: string } | null {
  if (typeof model !== 'string' || model.length > MAX_MODEL_LENGTH) return null;
  const slash = model.indexOf('/');
  if (slash <= 0) return null;
  const provider = model.slice(0, slash);
  const modelId = model.slice(slash + 1);
  if (!/^[^\s\p{Cc}]+$/u.test(modelId) || !(PROVIDERS as readonly string[]).includes(provider)) return null;
  return { provider: provider as Provider, modelId };
}

/** The providers this server can call, from its environment. */
export function configuredProviders(): Provider[] {
  return PROVIDERS.filter((p) => providerSetting(p) === null);
}

/** What is missing for a provider (a sentence), or null when it is configured. */
function providerSetting(provider: Provider): string | null {
  switch (provider) {
    case 'sandbox':
      return null;
    case 'openai':
      return env.OPENAI_API_KEY ? null : 'set OPENAI_API_KEY';
    case 'anthropic':
      return env.ANTHROPIC_API_KEY ? null : 'set ANTHROPIC_API_KEY';
    case 'openai-compatible':
      return env.OPENAI_COMPATIBLE_BASE_URL ? null : 'set OPENAI_COMPATIBLE_BASE_URL';
  }
}

type Factory = (modelId: string) => LanguageModel;

// One provider instance per process, even when Next evaluates this module several times.
const CACHE = Symbol.for('agent-service.model-providers');
function factories(): Map<Provider, Factory> {
  const g = globalThis as unknown as Record<symbol, Map<Provider, Factory> | undefined>;
  return (g[CACHE] ??= new Map());
}

function factory(provider: Provider): Factory {
  const cache = factories();
  let make = cache.get(provider);
  if (make) return make;
  switch (provider) {
    case 'sandbox':
      make = sandboxModel;
      break;
    case 'openai': {
      // The Responses API, OpenAI's default for its own models.
      const openai = createOpenAI({ apiKey: env.OPENAI_API_KEY });
      make = (id) => openai(id);
      break;
    }
    case 'anthropic': {
      const anthropic = createAnthropic({ apiKey: env.ANTHROPIC_API_KEY });
      make = (id) => anthropic(id);
      break;
    }
    case 'openai-compatible': {
      const compatible = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: env.OPENAI_COMPATIBLE_BASE_URL!,
        ...(env.OPENAI_COMPATIBLE_API_KEY ? { apiKey: env.OPENAI_COMPATIBLE_API_KEY } : {}),
        includeUsage: true, // usage in streamed answers (stream_options.include_usage)
        // Structured outputs as OpenAI's strict `json_schema` (servers that accept `response_format`: docs/versions.md).
        supportsStructuredOutputs: true,
      });
      // Streamed through the cheap reader (compatible.ts): the hot path of every run on this provider.
      const settings = { baseURL: env.OPENAI_COMPATIBLE_BASE_URL!, ...(env.OPENAI_COMPATIBLE_API_KEY ? { apiKey: env.OPENAI_COMPATIBLE_API_KEY } : {}) };
      make = (id) => {
        const chat = compatible.chatModel(id);
        return chat instanceof OpenAICompatibleChatLanguageModel ? fastCompatibleChat(chat, settings) : chat;
      };
      break;
    }
  }
  // One model object per model id, made once (the provider's chat model builds its response
  // schemas in its constructor: ~0.7 ms of CPU on every run when made per run). Model objects
  // hold no state of a call, so runs share them. Ids come from agents, so the cache is bounded:
  // past MODELS_KEPT ids it starts over.
  const models = new Map<string, LanguageModel>();
  const made: Factory = (id) => {
    let model = models.get(id);
    if (!model) {
      if (models.size >= MODELS_KEPT) models.clear();
      models.set(id, (model = make(id)));
    }
    return model;
  };
  cache.set(provider, made);
  return made;
}

/** Model objects kept per provider (see `factory`). */
const MODELS_KEPT = 256;

export interface ResolvedModel {
  model: LanguageModel;
  /** The model that runs, as recorded on the execution (`provider/modelId`). */
  used: string;
  /** Whether it is the offline sandbox (nothing billed, nothing sent anywhere). */
  sandboxed: boolean;
}

/**
 * The model an execution runs on. In the test environment that is the sandbox, standing in for
 * the agent's model under the same model id: `openai/gpt-4o` runs as `sandbox/gpt-4o`, and a
 * sandbox model as itself (so `sandbox/slow` stays slow). TEST_MODE_REAL_MODELS=true lets test
 * executions call the real provider. Throws ModelError for an unknown or unconfigured provider.
 */
export function resolveModel(model: string, opts: { environment: 'live' | 'test' }): ResolvedModel {
  const parsed = parseModel(model);
  if (!parsed) {
    throw new ModelError('model_provider_unavailable', `Unknown model "${model.slice(0, MAX_MODEL_LENGTH)}": use provider/model with one of the providers ${PROVIDERS.join(', ')}`);
  }
  const { provider, modelId } = parsed;
  if (provider === 'sandbox' || (opts.environment === 'test' && !env.TEST_MODE_REAL_MODELS)) {
    return { model: factory('sandbox')(modelId), used: `sandbox/${modelId}`, sandboxed: true };
  }
  const missing = providerSetting(provider);
  if (missing) throw new ModelError('model_provider_unavailable', `The ${provider} provider is not configured on this server (${missing})`);
  return { model: factory(provider)(modelId), used: model, sandboxed: false };
}

/** Forgets the cached provider instances (tests that change the environment). */
export function resetProviders(): void {
  factories().clear();
}

// ---------------------------------------------------------------------------------------------
// Errors

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);

/**
 * A connection that broke after it was made: reset by the provider (or a proxy before it), closed
 * by the other side mid-answer (undici's `TypeError: terminated`, caused by a SocketError).
 */
const BROKEN_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The first network error code of `codes` (ECONNREFUSED…) along an error's cause chain. */
function networkCode(err: unknown, codes = UNREACHABLE_CODES): string | undefined {
  for (let e = err, i = 0; e && typeof e === 'object' && i < 6; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return code;
    const errors = (e as { errors?: unknown }).errors; // AggregateError (IPv4 + IPv6 attempts)
    if (Array.isArray(errors)) for (const inner of errors) if (typeof inner?.code === 'string' && codes.has(inner.code)) return inner.code;
  }
  return undefined;
}

/**
 * What a failed model call's error was, for the log: each error's name, code and message along
 * its cause chain (`TypeError: terminated ← SocketError (UND_ERR_SOCKET): other side closed`),
 * messages cut short and stripped of credentials. Never the error itself: the AI SDK's errors
 * carry the request's body (the prompt) and headers.
 */
export function errorChain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, i = 0; e && i < 6; e = (e as { cause?: unknown }).cause, i++) {
    if (typeof e !== 'object') {
      parts.push(safeText(String(e), 120));
      break;
    }
    const { name, code, message } = e as { name?: unknown; code?: unknown; message?: unknown };
    parts.push(`${typeof name === 'string' ? name : 'Error'}${typeof code === 'string' ? ` (${code})` : ''}: ${safeText(typeof message === 'string' ? message : '', 120)}`);
  }
  return parts.join(' ← ');
}

/** A provider's message, with anything that looks like a credential removed, kept short. */
export function safeText(text: string, max = 200): string {
  let out = text;
  for (const secret of [env.OPENAI_API_KEY, env.ANTHROPIC_API_KEY, env.OPENAI_COMPATIBLE_API_KEY]) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  out = out
    .replace(/\b(Bearer|Basic)\s+[\w.~+/=-]+/gi, '$1 [redacted]')
    .replace(/\b(sk|pk|rk|key|api|token)[-_][\w-]{6,}/gi, '[redacted]')
    .replace(/[A-Za-z0-9_+/=-]{32,}/g, '[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** The underlying error of a retried call (the AI SDK wraps the last failure in a RetryError). */
function unwrap(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 3 && RetryError.isInstance(e); i++) e = e.lastError;
  return e;
}

/** A model-call failure as an execution error: a code and a short message with no secrets. */
export function classifyModelError(err: unknown): { code: ModelErrorCode; message: string } {
  const e = unwrap(err);
  if (e instanceof ModelError) return { code: e.code, message: e.message };
  if (LoadAPIKeyError.isInstance(e)) return { code: 'model_provider_unavailable', message: 'The model provider has no API key configured on this server' };

  const code = networkCode(e);
  if (code) return { code: 'model_provider_unavailable', message: `Could not connect to the model provider (${code})` };
  const broken = networkCode(e, BROKEN_CODES);
  if (broken) return { code: 'model_provider_unavailable', message: `The connection to the model provider broke before its answer ended (${broken})` };

  if (APICallError.isInstance(e)) {
    const status = e.statusCode;
    const detail = safeText(e.message);
    if (status === undefined) {
      const unreachable = /cannot connect|fetch failed/i.test(e.message);
      return unreachable
        ? { code: 'model_provider_unavailable', message: `Could not connect to the model provider: ${detail}` }
        : { code: 'model_error', message: `The model call failed: ${detail}` };
    }
    if (status === 401 || status === 403) {
      return { code: 'model_provider_unavailable', message: `The model provider refused this server's credentials (HTTP ${status}): ${detail}` };
    }
    if (status === 429) return { code: 'model_error', message: `The model provider is rate limiting this server (HTTP 429): ${detail}` };
    return { code: 'model_error', message: `The model provider answered HTTP ${status}: ${detail}` };
  }

  if (e instanceof Error) {
    if (e.name === 'AbortError' || e.name === 'TimeoutError') return { code: 'model_error', message: 'The model call was aborted' };
    const status = (e as { statusCode?: unknown }).statusCode;
    const suffix = typeof status === 'number' ? ` (HTTP ${status})` : '';
    // Errors of the AI SDK (AI_*) describe the model's answer; anything else is ours: no details.
    if (e.name.startsWith('AI_')) return { code: 'model_error', message: `The model call failed${suffix}: ${safeText(e.message)}` };
    return { code: 'model_error', message: `The model call failed unexpectedly${suffix}` };
  }
  return { code: 'model_error', message: 'The model call failed unexpectedly' };
}
