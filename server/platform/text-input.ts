import { ApiError } from './errors';

// Text PostgreSQL can store: every string and object key of a request's input must be
// well-formed Unicode (no lone surrogate such as "\ud800", which JSON can spell but jsonb and
// UTF-8 cannot hold) and free of NUL. One check for both faces: REST bodies as they are read
// (server/api/rest/body.ts), tRPC input in a middleware (server/api/trpc/init.ts). Refused as
// `invalid_parameter` with the field's dotted path, before anything is written.

/** Whether a string can be stored as text: well-formed Unicode without NUL. */
export const isStorableText = (s: string): boolean => s.isWellFormed() && !s.includes('\0');

export interface BadText {
  /** The dotted path of the string, or of the object holding the bad key ('' for the input itself). */
  param: string;
  /** Whether the string is an object key rather than a value. */
  key: boolean;
  problem: 'nul' | 'unicode';
}

/**
 * The first string or key (depth first, in order) for which `bad` says so, or null. Iterative,
 * with parent links instead of path copies: no input is nested deeply enough to overflow the
 * stack or cost more than one pass. A bad key is reported on the object holding it.
 */
export function findString(
  value: unknown,
  bad: (s: string) => boolean,
): { path: string; key: boolean; text: string } | null {
  interface Node {
    value: unknown;
    key: string | null;
    parent: Node | null;
  }
  const pathOf = (node: Node) => {
    const path: string[] = [];
    for (let n: Node | null = node; n && n.key !== null; n = n.parent) path.push(n.key);
    return path.reverse().join('.');
  };
  const stack: Node[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      if (bad(v)) return { path: pathOf(node), key: false, text: v };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const entries = Object.entries(v);
    if (!Array.isArray(v)) for (const [k] of entries) if (bad(k)) return { path: pathOf(node), key: true, text: k };
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], key: entries[i]![0], parent: node });
  }
  return null;
}

/** The first string or key of a JSON value that cannot be stored as text, or null. */
export function findBadText(value: unknown): BadText | null {
  const found = findString(value, (s) => !isStorableText(s));
  if (!found) return null;
  return { param: found.path, key: found.key, problem: found.text.includes('\0') ? 'nul' : 'unicode' };
}

/** The 400 for a string or key that cannot be stored as text. */
export function badTextError(found: BadText): ApiError {
  const field = found.param || 'input';
  const message = found.key
    ? `'${field}' has a key ${found.problem === 'nul' ? 'with a NUL character' : 'that is not valid Unicode text'}`
    : `'${field}' ${found.problem === 'nul' ? 'must not contain NUL characters' : 'is not valid Unicode text (it holds a lone surrogate)'}`;
  return new ApiError('invalid_parameter', message, found.param ? { param: found.param } : {});
}

/** Refuses input holding a string or key that cannot be stored as text. */
export function assertStorableText(value: unknown): void {
  const found = findBadText(value);
  if (found) throw badTextError(found);
}
