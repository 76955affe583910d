import { z } from 'zod';
import { ApiError, type DeclaredErrorCode } from './errors';
import { isId, type IdPrefix } from './id-format';

// Keyset pagination on prefixed, time-sortable ids (docs/api.md, "Pagination"). Lists are newest
// first. `after=X`: the items older than X. `before=X`: the `limit` items just newer than X, still
// newest first. Cursors are ids, so a cursor may name an item deleted since.

/**
 * A `limit` (of a list, of an analytics page): a whole number 1–`max`, written in a query string
 * as plain decimal digits; the dashboard sends it as a JSON number. `z.coerce.number()` read the
 * query string with `Number()`, which takes `1e2`, `0x10`, ` 7 ` and `1.0` as numbers (and the
 * REST layer dropped an empty `limit=`, docs/decisions.md). `meta` goes on the number, where the
 * OpenAPI document reads it (`integer`, the bounds, the default).
 */
export function limitSchema(max: number, meta: { description: string; default?: number; example?: number }) {
  return z.preprocess(
    (value) => (typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value),
    z
      .number({ error: `expected a whole number from 1 to ${max}` })
      .int()
      .min(1)
      .max(max)
      .meta(meta),
  );
}

// The `.meta()` sits on the inner schema, not on `.optional()`: trpc-to-openapi unwraps the
// optional of a query parameter (and wraps it again), so a description on the wrapper never
// reaches /v1/openapi.json.
export const pageQuerySchema = {
  limit: limitSchema(100, { description: 'How many items to return, 1–100. Default: 20.', default: 20, example: 20 }).optional(),
  after: z
    .string()
    .meta({
      description: 'A cursor: return the items older than this id (pass the `nextCursor` of the previous page). Not with `before`.',
    })
    .optional(),
  before: z
    .string()
    .meta({
      description: 'A cursor: return the items just newer than this id (pass the `prevCursor` of a page). Not with `after`.',
    })
    .optional(),
};

/** The codes every list answers beyond those of any route: list procedures declare them in their meta. */
export const PAGE_ERRORS = ['invalid_cursor', 'parameter_conflict'] as const satisfies readonly DeclaredErrorCode[];

export interface PageParams {
  limit?: number;
  after?: string;
  before?: string;
}

export type Direction = 'older' | 'newer';

export interface PagePlan {
  limit: number;
  direction: Direction;
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  prevCursor?: string;
}

export function pageEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    hasMore: z.boolean().meta({ description: 'Older items exist.' }),
    nextCursor: z.string().optional().meta({ description: 'The last item’s id, when older items exist: pass it as after.' }),
    prevCursor: z.string().optional().meta({ description: 'The first item’s id, when newer items exist: pass it as before.' }),
  });
}

export function planPage(prefix: IdPrefix, params: PageParams): PagePlan {
  const limit = params.limit ?? 20;
  if (params.after !== undefined && params.before !== undefined) {
    throw new ApiError('parameter_conflict', "Pass either 'after' or 'before', not both", { param: 'before' });
  }
  for (const param of ['after', 'before'] as const) {
    const cursor = params[param];
    if (cursor !== undefined && !isId(prefix, cursor)) {
      throw new ApiError('invalid_cursor', `'${param}' must be an id of the form ${prefix}_…`, { param });
    }
  }
  if (params.before !== undefined) return { limit, direction: 'newer', cursor: params.before };
  return { limit, direction: 'older', cursor: params.after };
}

export interface KeysetSource<T extends { id: string }> {
  /** Up to `take` items strictly older (id < cursor, newest first) or newer (id > cursor, oldest first). */
  fetch(direction: Direction, cursor: string | undefined, take: number): Promise<T[]>;
  /** Whether any item is strictly older / newer than `id`. */
  exists(direction: Direction, id: string): Promise<boolean>;
}

export async function paginate<T extends { id: string }>(plan: PagePlan, source: KeysetSource<T>): Promise<Page<T>> {
  const rows = await source.fetch(plan.direction, plan.cursor, plan.limit + 1);
  const more = rows.length > plan.limit;
  const data = rows.slice(0, plan.limit);
  if (plan.direction === 'newer') data.reverse();
  const first = data[0];
  const last = data[data.length - 1];
  if (!first || !last) return { data, hasMore: false };

  const olderExist = plan.direction === 'older' ? more : await source.exists('older', last.id);
  const newerExist =
    plan.direction === 'newer' ? more : plan.cursor !== undefined && (await source.exists('newer', first.id));
  return {
    data,
    hasMore: olderExist,
    ...(olderExist ? { nextCursor: last.id } : {}),
    ...(newerExist ? { prevCursor: first.id } : {}),
  };
}
