import { validateArguments } from '../tools/schema-pool';
import type { OutputCheck } from './model-loop';

// Structured outputs (docs/versions.md, "Structured outputs"): a final answer is JSON valid
// against the run's output schema. It is parsed as it is (no code fences stripped: the provider's
// structured output never adds them, and a model that does gets its repair turn), and checked
// with ajv in the schema pool's threads (the project's validator of tool arguments), never on
// the event loop.

export function outputCheck(workspaceId: string, schema: Record<string, unknown>): OutputCheck {
  return {
    schema,
    async check(text) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { ok: false, errors: `the answer is not JSON (${text.length === 0 ? 'it is empty' : `it begins ${JSON.stringify(text.slice(0, 40))}`})` };
      }
      const outcome = await validateArguments(workspaceId, schema, value);
      if (outcome.ok) return { ok: true, value };
      if (outcome.reason === 'invalid') return { ok: false, errors: outcome.message };
      return { ok: false, errors: outcome.reason === 'busy' ? 'it could not be checked now (the server is busy checking schemas)' : 'it took too long to check' };
    },
  };
}
