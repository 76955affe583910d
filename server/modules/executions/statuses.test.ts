import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { executionSchema } from './schemas';
import { EXECUTION_EVENT_TYPES, isTerminalEvent } from './events';
import { ACTIVE_STATUSES, EXECUTION_STATUSES, type ExecutionStatus, FINAL_STATUSES, INITIAL_STATUSES, isActive, isFinal, move, TERMINAL_EVENT_TYPES, terminalEventType, TRANSITIONS } from '../vocabulary/statuses';
import { EVENT_TYPES } from '../vocabulary/event-types';
import { executionAnalyticsInput, executionUsageRowSchema } from '../usage/schemas';

// statuses.ts is the one place that says which statuses are final. Everything that lists them
// again (the contract's events, the webhook event types, the usage filters, the SQL the
// migrations hold) must agree with it: a status added there shows up here first.

const root = path.resolve(import.meta.dirname, '../../..');
const enumOf = (schema: unknown) => [...((schema as { options: readonly string[] }).options ?? [])];

describe('execution statuses', () => {
  it('are split into active and final, each status in exactly one', () => {
    assert.deepEqual([...ACTIVE_STATUSES, ...FINAL_STATUSES].sort(), [...EXECUTION_STATUSES].sort());
    for (const s of EXECUTION_STATUSES) assert.equal(isFinal(s), !isActive(s), s);
    assert.deepEqual(enumOf(executionSchema.shape.status), [...EXECUTION_STATUSES]);
  });

  it('never leave a final status, and every active one can end', () => {
    for (const s of FINAL_STATUSES) assert.deepEqual(TRANSITIONS[s], [], s);
    for (const s of ACTIVE_STATUSES) assert.ok(TRANSITIONS[s].includes('cancelled'), `${s} can be cancelled`);
    // Every status is reached from `queued` by the transitions.
    const reached = new Set<ExecutionStatus>(['queued']);
    for (const s of reached) for (const t of TRANSITIONS[s]) reached.add(t);
    assert.deepEqual([...reached].sort(), [...EXECUTION_STATUSES].sort());
  });

  it('are written only by moves TRANSITIONS allows: a write that could make another throws before it is sent', () => {
    assert.deepEqual(move(ACTIVE_STATUSES, 'cancelled'), { from: ACTIVE_STATUSES, to: 'cancelled' });
    assert.deepEqual(move(['running'], 'requires_action').from, ['running']);
    assert.throws(() => move(['succeeded'], 'running'), /never goes from succeeded to running/);
    assert.throws(() => move(['running', 'queued'], 'succeeded'), /never goes from queued to succeeded/);
    assert.throws(() => move(['requires_action'], 'running'), /never goes from requires_action to running/);
    for (const status of INITIAL_STATUSES) assert.ok(isActive(status), `${status} is where a run starts, and it is active`);
  });

  it('have one terminal event each, in the contract and among the webhook event types', () => {
    assert.deepEqual(TERMINAL_EVENT_TYPES, FINAL_STATUSES.map((s) => `execution.${s}`));
    for (const s of FINAL_STATUSES) {
      const type = terminalEventType(s);
      assert.ok(isTerminalEvent(type), type);
      assert.ok(EXECUTION_EVENT_TYPES.includes(type), `${type} is an event of the contract`);
      assert.ok((EVENT_TYPES as readonly string[]).includes(type), `${type} is a webhook event type`);
    }
    // The contract's other events are not terminal, and the terminal ones come last.
    assert.deepEqual(EXECUTION_EVENT_TYPES.filter(isTerminalEvent), [...TERMINAL_EVENT_TYPES]);
    assert.deepEqual(EXECUTION_EVENT_TYPES.slice(-TERMINAL_EVENT_TYPES.length), [...TERMINAL_EVENT_TYPES]);
  });

  it('are what usage analytics filter and group by', () => {
    assert.deepEqual(enumOf(executionAnalyticsInput.shape.status.unwrap()), [...FINAL_STATUSES]);
    assert.deepEqual(enumOf(executionUsageRowSchema.shape.status.unwrap()), [...FINAL_STATUSES]);
  });

  it('are what the SQL of the schema and migrations says (0007’s usage trigger, the active-runs index)', () => {
    const list = (xs: readonly string[]) => `(${xs.map((x) => `'${x}'`).join(', ')})`;
    const migrations = fs
      .readdirSync(path.join(root, 'db/migrations'))
      .filter((f) => f.endsWith('.sql'))
      .map((f) => fs.readFileSync(path.join(root, 'db/migrations', f), 'utf8'))
      .join('\n');
    // Every list of statuses written in SQL is the final or the active one.
    const lists = [...migrations.matchAll(/status\s+(?:NOT\s+)?IN\s+(\([^)]*\))/gi)].map((m) => m[1]!.replace(/"/g, "'"));
    assert.ok(lists.length > 0);
    for (const l of lists) assert.ok([list(FINAL_STATUSES), list(ACTIVE_STATUSES)].includes(l), `a list of statuses in SQL: ${l}`);
    const schema = fs.readFileSync(path.join(root, 'db/schema/executions.ts'), 'utf8');
    for (const m of schema.matchAll(/status\}\s+in\s+(\([^)]*\))/g)) assert.ok([list(FINAL_STATUSES), list(ACTIVE_STATUSES)].includes(m[1]!), m[1]);
  });
});
