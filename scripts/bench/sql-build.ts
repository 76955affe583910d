// What building SQL text costs (issue 49, docs/benchmark.md): a statement of the shape the engine
// sends on every run — a CTE of writes with parameters, as `statementWith` makes the finish —
// rendered by drizzle's dialect N times in this process, CPU per build. No database.
//   node --import tsx scripts/bench/sql-build.ts [N=20000]
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { writeAll } from '../../db/rows';
import { executions } from '../../db/schema';

const N = Number(process.argv[2] ?? 20_000);
const dialect = new PgDialect();

function statement(i: number) {
  const id = `exe_${String(i).padStart(26, '0')}`;
  const writes = [
    sql`update ${executions} set ${executions.status} = ${'succeeded'}, ${executions.output} = ${'an answer'}, ${executions.inputTokens} = ${i}, ${executions.outputTokens} = ${i + 1} where ${executions.id} = ${id} and ${executions.status} = ${'running'} returning ${executions.id}`,
    sql`insert into execution_events (execution_id, seq, type, data) select ${id}, (e.value->>'seq')::int, e.value->>'type', e.value->'data' from json_array_elements(${'[]'}::json) as e(value)`,
    sql`insert into usage_execution_records (execution_id, workspace_id, environment, agent_id, model, status, input_tokens, output_tokens) values (${id}, ${'ws_1'}, ${'live'}, ${'agt_1'}, ${'m'}, ${'succeeded'}, ${i}::int, ${i}::int)`,
  ];
  return writeAll(writes, [sql`pg_notify('aas_execution', ${id})`]);
}

for (let i = 0; i < 2_000; i++) dialect.sqlToQuery(statement(i)); // warm-up
const t0 = process.cpuUsage();
for (let i = 0; i < N; i++) dialect.sqlToQuery(statement(i));
const used = process.cpuUsage(t0);
console.log(`${N} builds: ${(((used.user + used.system) / N)).toFixed(1)} µs of CPU each`);
