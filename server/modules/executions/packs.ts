import { sql, type SQL } from 'drizzle-orm';

// How an execution's events are stored (docs/executions.md, "How events are stored"). A model's
// answer is dozens of `text.delta` events, and a row each cost the embedded database ~30 µs to
// insert (its index, its tuple, its JSON) — more than the rest of a run's end. Consecutive deltas
// of one write therefore go in one row, a *pack*: `seq` is the first one's number, `last_seq`
// the last one's, and `data` the JSON array of their data in order. Every other event, and a
// delta too large to share a row, is a row of its own (`last_seq` null), as before. Readers see
// events, never packs: `storedEvents` expands them in SQL, each with its own sequence number.

/** The event type that is packed. */
const PACKED_TYPE = 'text.delta';
/** A delta whose data is longer than about this (JSON characters) is a row of its own. */
const MAX_PACKED_EVENT_CHARS = 4 * 1024;
/** A pack holds at most about this many characters of data (so that reading one event of it stays cheap). */
const MAX_PACK_CHARS = 32 * 1024;

interface Event {
  seq: number;
  type: string;
  data: unknown;
}

/** One row of `execution_events` as the insert reads it from JSON: `last` only on a pack. */
export interface StoredRow {
  seq: number;
  last?: number;
  type: string;
  data: unknown;
}

/** About the size of an event as written, in characters (deltas are most of them: their text, without writing it out). */
export function approximateSize(event: Pick<Event, 'type' | 'data'>): number {
  const delta = event.type === PACKED_TYPE ? (event.data as { delta?: unknown }).delta : undefined;
  return (typeof delta === 'string' ? delta.length : JSON.stringify(event.data).length) + 64;
}

/**
 * The rows of one execution's events (in sequence order, no gaps within a pack): consecutive
 * deltas with consecutive numbers share a row, within the limits above.
 */
export function packEvents(events: readonly Event[]): StoredRow[] {
  const rows: StoredRow[] = [];
  let pack: { seq: number; last: number; type: string; data: unknown[] } | null = null;
  let chars = 0;
  for (const e of events) {
    const size = e.type === PACKED_TYPE ? approximateSize(e) : Infinity;
    if (pack && size <= MAX_PACKED_EVENT_CHARS && e.seq === pack.last + 1 && chars + size <= MAX_PACK_CHARS) {
      pack.last = e.seq;
      pack.data.push(e.data);
      chars += size;
      continue;
    }
    if (size <= MAX_PACKED_EVENT_CHARS) {
      pack = { seq: e.seq, last: e.seq, type: e.type, data: [e.data] };
      chars = size;
      rows.push(pack);
    } else {
      pack = null;
      rows.push({ seq: e.seq, type: e.type, data: e.data });
    }
  }
  // A pack of one is a plain row.
  return rows.map((r) => (r.last === undefined || r.last > r.seq ? r : { seq: r.seq, type: r.type, data: (r.data as unknown[])[0] }));
}

/**
 * The `select` list of rows from a JSON array of `StoredRow`s aliased `alias` (a json_array_elements
 * value): sequence number, last sequence number, type, data — in the insert's column order.
 */
export const storedRowColumns = (alias: string): SQL =>
  sql.raw(`(${alias}.value->>'seq')::int, (${alias}.value->>'last')::int, ${alias}.value->>'type', ${alias}.value->'data'`);

/**
 * One execution's stored events after `after` and before `below`, each with its own sequence
 * number, type and data (packs expanded): a relation with columns `seq, type, data`, for a
 * caller that orders and limits it.
 */
export const storedEvents = (executionId: SQL, after: SQL, below: SQL): SQL =>
  sql`select e.seq, e.type, e.data from execution_events e
      where e.execution_id = ${executionId} and e.last_seq is null and e.seq > ${after} and e.seq < ${below}
      union all
      select seq, type, data from (
        select e.seq + p.i::int - 1 as seq, e.type, p.value as data from execution_events e
        cross join lateral json_array_elements(e.data) with ordinality as p(value, i)
        where e.execution_id = ${executionId} and e.last_seq is not null and e.last_seq > ${after} and e.seq < ${below}) x
      where seq > ${after} and seq < ${below}`;

/** One stored event's data (a relation with the column `data`, no row when there is none). */
export const storedEvent = (executionId: SQL, seq: SQL): SQL =>
  sql`select case when e.last_seq is null then e.data else e.data -> (${seq} - e.seq) end as data
      from execution_events e
      where e.execution_id = ${executionId} and e.seq <= ${seq} and coalesce(e.last_seq, e.seq) >= ${seq}
      order by e.seq desc limit 1`;
