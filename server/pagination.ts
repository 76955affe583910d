import { z } from 'zod';
import { ApiError } from './errors';
import { isId, type IdPrefix } from './ids';

// Keyset pagination on prefixed, time-sortable ids (DESIGN.md 3.2). Lists are newest first.
// `after=X`: the items older than X. `before=X`: the `limit` items just newer than X, still
// newest first. Cursors are ids, so a cursor may name an item deleted since.

export const pageQuerySchema = {
  limit: z.coerce.number().int().min(1).max(100).optional().meta({ description: 'Items per page, 1–100 (default 20).' }),
  after: z
    .string()
    .optional()
    .meta({ description: 'Cursor: return the items older than this id (pass the previous page’s nextCursor).' }),
  before: z
    .string()
    .optional()
    .meta({ description: 'Cursor: return the items just newer than this id (pass prevCursor). Not with after.' }),
};

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
    throw new ApiError(400, 'parameter_conflict', "Pass either 'after' or 'before', not both", { param: 'before' });
  }
  for (const param of ['after', 'before'] as const) {
    const cursor = params[param];
    if (cursor !== undefined && !isId(prefix, cursor)) {
      throw new ApiError(400, 'invalid_cursor', `'${param}' must be an id of the form ${prefix}_…`, { param });
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
