import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as drizzle from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import { agents, workspaces } from './schema';

// drizzle's row mapping, exported by its index but not typed (internal to its sessions).
type Field = { path: string[]; field: unknown };
const { mapResultRow, orderSelectedFields } = drizzle as unknown as {
  mapResultRow: (fields: Field[], row: unknown[], joins: Record<string, boolean> | undefined) => Record<string, unknown>;
  orderSelectedFields: (fields: Record<string, unknown>) => Field[];
};

// drizzle's mapResultRow with patches/drizzle-orm+0.45.4.patch (docs/platform-notes.md, "drizzle's
// row mapping"): what each selected field needs is worked out once per fields array, and rows are
// mapped as before: decoded columns, SQL fields with their decoders, nested objects, and a
// left-joined table's object null when all its columns are.

const fields = orderSelectedFields({
  id: agents.id,
  createdAt: agents.createdAt,
  n: sql<number>`1`.mapWith(Number),
  plain: sql<string>`'x'`,
  workspace: { id: workspaces.id, plan: workspaces.plan },
});

describe("drizzle's mapResultRow", () => {
  it('decodes columns and SQL fields and nests objects', () => {
    const row = mapResultRow(fields, ['agt_1', '2026-11-30 05:00:00+00', '7', 'x', 'ws_1', 'starter'], undefined);
    assert.deepEqual(row, { id: 'agt_1', createdAt: new Date('2026-11-30T05:00:00Z'), n: 7, plain: 'x', workspace: { id: 'ws_1', plan: 'starter' } });
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
  });

  it('keeps nulls and, for a nullable join, makes an all-null table object null', () => {
    const joins = { agents: true, workspaces: false };
    assert.deepEqual(mapResultRow(fields, ['agt_1', null, null, null, null, null], joins), { id: 'agt_1', createdAt: null, n: null, plain: null, workspace: null });
    assert.deepEqual(mapResultRow(fields, ['agt_1', null, null, null, 'ws_1', null], joins).workspace, { id: 'ws_1', plan: null });
    // Not a nullable join: the object stays, with its nulls.
    assert.deepEqual(mapResultRow(fields, ['agt_1', null, null, null, null, null], { agents: true, workspaces: true }).workspace, { id: null, plan: null });
  });

  it('maps each row of the same fields alike (the plan is reused)', () => {
    const a = mapResultRow(fields, ['agt_a', null, '1', 'x', 'ws_a', 'professional'], undefined);
    const b = mapResultRow(fields, ['agt_b', null, '2', 'y', 'ws_b', 'enterprise'], undefined);
    assert.deepEqual([a.id, a.n, a.workspace, b.id, b.n, b.plain, b.workspace], ['agt_a', 1, { id: 'ws_a', plan: 'professional' }, 'agt_b', 2, 'y', { id: 'ws_b', plan: 'enterprise' }]);
  });
});
