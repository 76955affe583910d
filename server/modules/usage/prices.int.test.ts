import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { queryRows } from '../../../db/rows';
import { workspaces } from '../../../db/schema';
import { bareTestDatabase } from '../../../test/harness';
import { newId } from '../../platform/ids';
import { compactAll } from './compactor';
import { executionSeries } from './executions';
import { pricedFrom, type PriceTable } from '../../platform/prices';
import { sumAll, sumSeries, type Scope } from './series';

// The cost rule on the real database (PGlite or PostgreSQL, as TEST_DB says): an execution that
// used no tokens costs 0 whatever its model's price; only tokens of a model without a price make
// a cost unknown — in the records summed on the fly and in the rollups the compactor writes.

const PRICES: PriceTable = { 'openai/priced': { input: 1, output: 2 } };

let database: Database;
let cleanup: () => Promise<void>;
before(async () => {
  ({ database, close: cleanup } = await bareTestDatabase());
});
after(() => cleanup?.());

describe('the cost of one execution', () => {
  it('is 0 without tokens, unknown for tokens of an unpriced live model, priced otherwise', async () => {
    const rows: [string, string, number, number][] = [
      ['live', 'openai/unpriced', 0, 0],
      ['live', 'openai/unpriced', 10, 5],
      ['live', 'openai/priced', 1_000, 2_000],
      ['live', 'openai/priced', 0, 0],
      ['live', 'sandbox/echo', 7, 7],
      ['test', 'openai/unpriced', 10, 5],
    ];
    const values = sql.join(
      rows.map(([environment, model, input, output], i) => sql`(${i}::int, ${environment}::text, ${model}::text, ${input}::int, ${output}::int)`),
      sql`, `,
    );
    const priced = pricedFrom(sql`(select * from (values ${values}) as v(i, environment, model, input_tokens, output_tokens))`, PRICES);
    const costs = await queryRows<{ cost: string | null }>(database.db, sql`select ${priced.cost}::text as cost from ${priced.from} order by r.i`);
    assert.deepEqual(
      costs.map((c) => (c.cost === null ? null : Number(c.cost))),
      [0, null, 0.005, 0, 0, 0],
    );
  });
});

describe('the cost of a range', () => {
  const scope = (workspaceId: string): Scope => ({ workspaceId, environment: 'live' });
  const now = Date.now();
  const day = 86_400_000;
  const query = { granularity: 'day' as const, from: Math.floor(now / day) * day, to: Math.floor(now / day) * day + day, groups: [], byBucket: false };

  async function workspace(records: { model: string; status: string; input: number; output: number }[]): Promise<string> {
    const id = newId('ws');
    await database.db.insert(workspaces).values({ id, name: 'Prices' });
    for (const r of records) {
      await database.db.execute(sql`insert into usage_execution_records (execution_id, workspace_id, environment, agent_id, model, status, completed_at, duration_ms, input_tokens, output_tokens, tool_calls)
        values (${newId('exe')}, ${id}, 'live', 'agt_prices', ${r.model}, ${r.status}, now(), 100, ${r.input}, ${r.output}, 0)`);
    }
    return id;
  }

  /** The range's totals as the API answers them (PRICES is not the process's table: the records use none of its models). */
  async function totalCost(workspaceId: string): Promise<number | null> {
    const series = executionSeries({});
    const sums = await sumSeries(database.db, scope(workspaceId), series, query);
    return series.view(sumAll(series, sums, false), null).costUsd;
  }

  it('is known when the only unpriced run used no tokens, unknown once one used some, before and after compaction', async () => {
    const failedOnly = await workspace([
      { model: 'openai/unpriced', status: 'failed', input: 0, output: 0 },
      { model: 'sandbox/echo', status: 'succeeded', input: 3, output: 4 },
    ]);
    const usedTokens = await workspace([
      { model: 'openai/unpriced', status: 'failed', input: 0, output: 0 },
      { model: 'openai/unpriced', status: 'succeeded', input: 12, output: 8 },
    ]);
    assert.equal(await totalCost(failedOnly), 0, 'a failed run without tokens costs nothing');
    assert.equal(await totalCost(usedTokens), null, 'tokens of an unpriced model are an unknown cost');

    await compactAll(database.db, { batch: 10, prices: PRICES });
    const [left] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from usage_execution_records`);
    assert.equal(left!.n, 0, 'every record compacted');
    assert.equal(await totalCost(failedOnly), 0, 'the same from the rollups');
    assert.equal(await totalCost(usedTokens), null);
  });

  it('migration 0014 clears what older rollups counted as unpriced without tokens', async () => {
    const id = await workspace([]);
    const bucket = new Date(query.from).toISOString();
    await database.db.execute(sql`insert into usage_execution_rollups (workspace_id, environment, granularity, bucket, agent_id, model, status, executions, started, input_tokens, output_tokens, tool_calls, cost_usd, unpriced, duration_hist)
      values (${id}, 'live', 'day', ${bucket}::timestamptz, 'agt_old', 'openai/unpriced', 'failed', 2, 2, 0, 0, 0, 0, 2, '100:2'),
             (${id}, 'live', 'day', ${bucket}::timestamptz, 'agt_old', 'openai/unpriced', 'succeeded', 1, 1, 5, 5, 0, 0, 1, '100:1')`);
    assert.equal(await totalCost(id), null);
    const migration = fs.readFileSync(path.resolve('db/migrations/0014_zero_token_cost.sql'), 'utf8');
    await database.db.execute(sql.raw(migration));
    const rows = await queryRows<{ status: string; unpriced: number }>(database.db, sql`select status, unpriced from usage_execution_rollups where workspace_id = ${id} order by status`);
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      { status: 'failed', unpriced: 0 },
      { status: 'succeeded', unpriced: 1 },
    ]);
    await database.db.execute(sql`delete from usage_execution_rollups where workspace_id = ${id} and status = 'succeeded'`);
    assert.equal(await totalCost(id), 0);
  });
});
