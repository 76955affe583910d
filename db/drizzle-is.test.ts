import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Column, is, Param, SQL, sql, Table } from 'drizzle-orm';
import { executions } from './schema';

// drizzle's `is()` with patches/drizzle-orm+0.45.4.patch (docs/platform-notes.md, "drizzle's
// entity check"): the same answers as before, the class chain walked once per class.

describe("drizzle's is()", () => {
  it('answers as before: a class, its subclasses, other classes, plain values', () => {
    assert.equal(is(sql`select 1`, SQL), true);
    assert.equal(is(new Param(1), SQL), false);
    assert.equal(is(new Param(1), Param), true);
    assert.equal(is(executions.id, Column), true, 'a PgColumn is a Column');
    assert.equal(is(executions, Table), true, 'a PgTable is a Table');
    assert.equal(is(executions.id, Table), false);
    assert.equal(is({}, SQL), false);
    assert.equal(is(null, SQL), false);
    assert.equal(is('text', SQL), false);
    // Asked again, from the cache: the same.
    assert.equal(is(new Param(2), SQL), false);
    assert.equal(is(executions.id, Column), true);
  });

  it('is patched: a class keeps the kinds of its chain once asked', () => {
    is(new Param(3), SQL);
    assert.ok(Object.getOwnPropertySymbols(Param).includes(Symbol.for('drizzle:entityKindsInChain')), 'patches/drizzle-orm+0.45.4.patch is not applied (npm ci applies it)');
  });
});
