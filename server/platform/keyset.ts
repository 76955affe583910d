import { and, asc, desc, eq, gt, lt, sql, type GetColumnData, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import type { Environment } from '../../db/schema';
import type { IdPrefix } from './ids';
import { paginate, planPage, type Direction, type Page, type PageParams } from './pagination';

// The list endpoints' SQL side of keyset pagination (pagination.ts has the envelope rules): rows of
// one workspace and environment, optionally narrowed by equality filters, newest first by id. One
// prepared statement per direction and filter shape, made on first use per database: lists are a
// hot path (prepared drizzle ≈ 2.5× unprepared, measured: docs/platform-notes.md, "Prepared
// statements on the hot paths").
//
//   const executionList = keysetList({
//     name: 'executions', prefix: 'exe', table: executions, columns: { ... },
//     filters: { agentId: executions.agentId, status: executions.status, conversationId: executions.conversationId },
//   });
//   executionList.page(db, actor, { limit, after, before, agentId, status }) → Page<row>
//
// The keyset order is `id desc` (`before` reads `id asc` and the page is reversed), so an index
// on (workspace_id, environment, [filter columns,] id) serves every page at the same cost.

/** A table of workspace data: each row belongs to one workspace and one environment. */
export type ScopedTable = PgTable & { id: PgColumn; workspaceId: PgColumn; environment: PgColumn };

/** Whose rows: an Actor fits. */
export interface ListScope {
  workspaceId: string;
  environment: Environment;
}

type Columns = Record<string, PgColumn> & { id: PgColumn };
/** A listed row: the selected columns' values (ids are text, never null). */
export type ListRow<C extends Columns> = { [K in keyof C]: GetColumnData<C[K]> } & { id: string };
/** The filter values a caller may pass; an absent (undefined) filter does not narrow. */
export type FilterValues<F extends Record<string, PgColumn>> = { [K in keyof F]?: GetColumnData<F[K], 'raw'> };

export interface KeysetListDefinition<C extends Columns, F extends Record<string, PgColumn>> {
  /** Prefix of the prepared statements' names (`<name>_<direction>[_<filters>]`): unique per list. */
  name: string;
  /** The id prefix of the listed resource: cursors of another kind are `invalid_cursor`. */
  prefix: IdPrefix;
  table: ScopedTable;
  /** The selected columns; `id` is the keyset. */
  columns: C;
  /** A condition every listed row meets besides the scope (e.g. not revoked). */
  where?: SQL;
  /** Equality filters by parameter name. */
  filters?: F;
}

type Fetch = 'first' | Direction;
interface Statement<Row> {
  execute(values: Record<string, unknown>): Promise<Row[]>;
}

export function keysetList<C extends Columns, F extends Record<string, PgColumn> = Record<never, PgColumn>>(
  def: KeysetListDefinition<C, F>,
) {
  type Row = ListRow<C>;
  const { table } = def;
  const filters: [string, PgColumn][] = Object.entries(def.filters ?? {});
  const byDb = new WeakMap<Db, Map<string, Statement<Row>>>();

  function prepare(db: Db, fetch: Fetch, used: string[]): Statement<Row> {
    const conditions: (SQL | undefined)[] = [
      eq(table.workspaceId, sql.placeholder('workspaceId')),
      eq(table.environment, sql.placeholder('environment')),
      def.where,
      ...filters.filter(([name]) => used.includes(name)).map(([name, column]) => eq(column, sql.placeholder(`f_${name}`))),
    ];
    if (fetch === 'older') conditions.push(lt(table.id, sql.placeholder('cursor')));
    if (fetch === 'newer') conditions.push(gt(table.id, sql.placeholder('cursor')));
    const name = [def.name, fetch, ...used].join('_');
    const query = db
      .select(def.columns as Record<string, PgColumn>)
      .from(table)
      .where(and(...conditions))
      .orderBy(fetch === 'newer' ? asc(table.id) : desc(table.id))
      .limit(sql.placeholder('take'))
      .prepare(name);
    // The selection is exactly `def.columns`; drizzle cannot name that row type for generic columns.
    return query as unknown as Statement<Row>;
  }

  function statement(db: Db, fetch: Fetch, used: string[]): Statement<Row> {
    let cache = byDb.get(db);
    if (!cache) byDb.set(db, (cache = new Map()));
    const key = [fetch, ...used].join(',');
    let s = cache.get(key);
    if (!s) cache.set(key, (s = prepare(db, fetch, used)));
    return s;
  }

  return {
    /** One page of the scope's rows, narrowed by the filters given (pagination.ts has the envelope). */
    async page(db: Db, scope: ListScope, query: PageParams & FilterValues<F>): Promise<Page<Row>> {
      const plan = planPage(def.prefix, query);
      const values: Record<string, unknown> = { workspaceId: scope.workspaceId, environment: scope.environment };
      const used: string[] = [];
      for (const [name] of filters) {
        const value = (query as Record<string, unknown>)[name];
        if (value === undefined) continue;
        used.push(name);
        values[`f_${name}`] = value;
      }
      const run = (fetch: Fetch, take: number, cursor?: string) =>
        statement(db, fetch, used).execute({ ...values, take, ...(cursor === undefined ? {} : { cursor }) });
      return paginate(plan, {
        fetch: (direction, cursor, take) => run(cursor === undefined ? 'first' : direction, take, cursor),
        exists: async (direction, id) => (await run(direction, 1, id)).length > 0,
      });
    },
  };
}
