import type { z } from 'zod';
import { ApiError } from '../../platform/errors';
import { findString } from '../../platform/text-input';

type Issue = z.core.$ZodIssue;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.');

/**
 * The first problem of a failed validation, as the API reports it: a missing field is
 * `missing_required_field`, a field we do not know is `unknown_parameter`, anything else
 * `invalid_parameter`; `param` is the dotted path of the field.
 */
export function inputError(issues: readonly Issue[], rawInput: unknown): ApiError {
  const issue = issues[0];
  if (!issue) return new ApiError('invalid_parameter', 'Invalid request');
  if (issue.code === 'unrecognized_keys') {
    const param = dotted([...issue.path, issue.keys[0] ?? '']);
    return new ApiError('unknown_parameter', `Unknown parameter: '${param}'`, { param });
  }
  // A bad element of a list of values names the list (`scopes`, not `scopes.0`).
  let end = issue.path.length;
  while (end > 0 && typeof issue.path[end - 1] === 'number') end--;
  const param = dotted(issue.path.slice(0, end));
  // A missing discriminator (a tool's `type`) is a missing field too, not an invalid union.
  const missable = issue.code === 'invalid_type' || (issue.code === 'invalid_union' && 'discriminator' in issue);
  if (missable && valueAt(rawInput, issue.path) === undefined && param !== '') {
    return new ApiError('missing_required_field', `Missing required field: '${param}'`, { param });
  }
  if (param === '') return new ApiError('invalid_parameter', `Invalid request: ${issue.message}`);
  return new ApiError('invalid_parameter', `Invalid '${param}': ${issue.message}`, { param });
}

/**
 * The dotted path of a string holding a NUL character (PostgreSQL text cannot store one), or of
 * the object holding such a key, or null. The walk is server/platform/text-input.ts's.
 */
export function findNul(value: unknown): string | null {
  return findString(value, (s) => s.includes('\0'))?.path ?? null;
}
