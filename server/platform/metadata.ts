import { z } from 'zod';
import { ApiError } from './errors';

// `metadata` of agents and executions: your own string → string pairs (≤ 50 keys, keys 1–40
// characters, values ≤ 500). A key named like a property every object inherits (`__proto__`,
// `constructor`…) is refused before parsing: JSON.parse makes it an own key, but copied into
// an object it would set that object's prototype instead of a key (silently dropped, or worse).

export const METADATA_MAX_KEYS = 50;

export const metadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= METADATA_MAX_KEYS, { message: `at most ${METADATA_MAX_KEYS} keys` })
  .meta({ description: 'Your own key-value pairs: ≤ 50 keys of 1–40 characters, string values ≤ 500 characters.', example: { ticket: 'T-1042' } });

/** Refuses inherited-property names as keys of `raw[field]` (400 invalid_parameter, param `param`, default `field`). */
export function assertSafeKeys(raw: unknown, field: string, param = field): void {
  if (raw === null || typeof raw !== 'object') return;
  const value = (raw as Record<string, unknown>)[field];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const key of Object.keys(value)) {
    if (key in Object.prototype) {
      throw new ApiError('invalid_parameter', `'${param}' cannot have a key named '${key}'`, { param });
    }
  }
}
