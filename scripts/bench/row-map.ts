// What drizzle costs around a statement besides building its text (issue 49, docs/benchmark.md):
// mapping the rows of a list page (20 agents, every column, as drizzle's postgres.js session
// does with `.values()` rows), and making a transaction's database object, with the relational
// schema drizzle was once given and without it. CPU per operation in this process; no database.
//   node --import tsx scripts/bench/row-map.ts [N=20000]
import * as drizzle from 'drizzle-orm';
import { createTableRelationsHelpers, extractTablesRelationalConfig, getTableColumns } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { PostgresJsSession, PostgresJsTransaction } from 'drizzle-orm/postgres-js';
import * as schema from '../../db/schema';

// drizzle's row mapping, exported by its index but not typed (internal to its sessions).
type Field = { path: string[]; field: unknown };
const { mapResultRow, orderSelectedFields } = drizzle as unknown as {
  mapResultRow: (fields: Field[], row: unknown[], joins: Record<string, boolean> | undefined) => Record<string, unknown>;
  orderSelectedFields: (fields: Record<string, unknown>) => Field[];
};

const N = Number(process.argv[2] ?? 20_000);

function cpu(label: string, n: number, fn: (i: number) => unknown) {
  for (let i = 0; i < Math.min(n, 2_000); i++) fn(i); // warm-up
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const used = process.cpuUsage(t0);
  console.log(`${label}: ${((used.user + used.system) / n).toFixed(2)} µs of CPU each (${n})`);
}

// A page of 20 agents as postgres.js hands drizzle its rows: an array of values per row, in the
// order of the selected fields (timestamps as text, jsonb parsed).
const fields = orderSelectedFields(getTableColumns(schema.agents));
const sample: Record<string, unknown> = {
  id: 'agt_01JD7X3Q8Z9Y6W5V4T3S2R1P0N', workspace_id: 'ws_01JD7X3Q8Z9Y6W5V4T3S2R1P0N', environment: 'live', name: 'Support triage',
  description: 'Reads a ticket and answers', model: 'gpt-4o-mini', instructions: 'Be brief.', tools: [], temperature: 0.2,
  metadata: { team: 'support' }, labels: {}, created_at: '2026-11-30 05:00:00.123+00', updated_at: '2026-11-30 05:00:00.123+00',
};
const rows = Array.from({ length: 20 }, () => fields.map(({ field }) => sample[(field as { name?: string }).name ?? ''] ?? null));
cpu('map a page of 20 agent rows', N, () => rows.map((row) => mapResultRow(fields, row, undefined)));

const dialect = new PgDialect();
const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
const relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
const session = new PostgresJsSession({} as never, dialect, undefined, {});
cpu(`a transaction's database object, relational schema of ${Object.keys(tables.tables).length} tables`, N, () => new PostgresJsTransaction(dialect, session, relational as never));
cpu("a transaction's database object, no schema", N, () => new PostgresJsTransaction(dialect, session, undefined));
