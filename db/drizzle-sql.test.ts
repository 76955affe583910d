import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq, inArray, Param, sql, SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { agents, executions } from './schema';

// drizzle's building of a statement's text with patches/drizzle-orm+0.45.4.patch
// (docs/platform-notes.md, "drizzle's statement text"): every chunk written into one result, nested
// SQL walked in place — the same text, parameters, numbering and typings as drizzle's own.

const dialect = new PgDialect();
const build = (q: SQL) => dialect.sqlToQuery(q);

describe("drizzle's statement text", () => {
  it('numbers the parameters of nested SQL in order, with a typing each', () => {
    const inner = sql`${executions.status} = ${'running'} and ${executions.attempt} > ${2}`;
    const q = build(sql`select ${executions.id} from ${executions} where ${executions.id} = ${'exe_1'} and (${inner}) and ${executions.eventSeq} < ${10}`);
    assert.equal(q.sql, 'select "executions"."id" from "executions" where "executions"."id" = $1 and ("executions"."status" = $2 and "executions"."attempt" > $3) and "executions"."event_seq" < $4');
    assert.deepEqual(q.params, ['exe_1', 'running', 2, 10]);
    assert.deepEqual(q.typings, ['none', 'none', 'none', 'none']);
  });

  it('writes lists, inlined SQL and raw text; no typings without parameters', () => {
    const q = build(sql`select ${sql.raw('1')} where ${agents.id} in ${['a', 'b']} and ${sql`x`.inlineParams()} = ${sql.join([sql`1`, sql`2`], sql`, `)}`);
    assert.equal(q.sql, 'select 1 where "agents"."id" in ($1, $2) and x = 1, 2');
    assert.deepEqual(q.params, ['a', 'b']);
    const none = build(sql`select ${sql.raw('now()')}`);
    assert.deepEqual(none, { sql: 'select now()', params: [] });
  });

  it('inlines the parameters of SQL that asks for it, and maps values through their columns', () => {
    const q = build(sql`select ${sql`${"it's"}`.inlineParams()}, ${new Param({ a: 1 }, agents.metadata)}`);
    assert.equal(q.sql, "select 'it''s', $1");
    assert.deepEqual(q.params, ['{"a":1}']);
  });

  it('types each parameter by its column’s class, the same when asked again (decided once per class)', () => {
    const at = new Date('2026-12-01T00:00:00Z');
    for (let i = 0; i < 2; i++) {
      const q = build(sql`select ${new Param({ a: 1 }, agents.metadata)}, ${new Param(at, executions.createdAt)}, ${new Param('x', executions.id)}, ${new Param(3, executions.attempt)}, ${'plain'}`);
      assert.deepEqual(q.typings, ['json', 'timestamp', 'none', 'none', 'none']);
    }
  });

  it('builds a query builder’s statement as before: subquery, placeholder', () => {
    const q = build(sql`select * from ${executions} where ${inArray(executions.id, sql`(select ${executions.id} from ${executions} where ${eq(executions.status, 'queued')})`)} and ${executions.attempt} = ${sql.placeholder('n')}`);
    assert.equal(q.sql, 'select * from "executions" where "executions"."id" in (select "executions"."id" from "executions" where "executions"."status" = $1) and "executions"."attempt" = $2');
    assert.equal(q.params.length, 2);
    assert.equal(q.params[0], 'queued');
  });

  it('is patched', () => {
    assert.equal(typeof (SQL.prototype as unknown as Record<string, unknown>).appendQueryChunks, 'function', 'patches/drizzle-orm+0.45.4.patch is not applied (npm ci applies it)');
  });
});
