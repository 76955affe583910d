import { sql } from 'drizzle-orm';
import { check, text, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';

// Column helpers shared by every table, so each kind of column reads (and migrates) the same.

import { ENVIRONMENTS } from './values';

export { ENVIRONMENTS, type Environment } from './values';

/** A point in time: `timestamp (3) with time zone` (milliseconds, as the API prints them). */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * A text column holding one of `values`, and the check constraint `<table>_<column>_check`
 * that holds the database to the same list. Use both: the column in the table's columns, the
 * check in its extra config (`(t) => [plan.check(t.plan)]`).
 */
export function textEnum<const V extends readonly [string, ...string[]]>(table: string, column: string, values: V) {
  const list = sql.raw(values.map((v) => `'${v.replaceAll("'", "''")}'`).join(','));
  return {
    column: text(column, { enum: values }),
    check: (col: AnyPgColumn) => check(`${table}_${column}_check`, sql`${col} in (${list})`),
  };
}

/** The `environment` of a workspace-scoped row (`live` or `test`), never null, with its check. */
export function environmentColumn(table: string) {
  const { column, check } = textEnum(table, 'environment', ENVIRONMENTS);
  return { column: column.notNull(), check };
}
