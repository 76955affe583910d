import type { SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { BACKGROUND, inLane } from '../../../db/lanes';
import { endsPipelined, inTransaction, sendInOrder, transaction } from '../../../db/transaction';
import { batches } from '../../platform/batches';
import type { StatementPart } from '../vocabulary/participants';
import { committed } from './participants';
import { endAwaited, endStatement, endsInOrder, endUpdate, finish, type ExecutionRow, type FinishGuard, type Outcome, type RunTail } from './lifecycle';

// The usual ends of a process's runs go together on PostgreSQL (docs/executions.md, "The end of
// a run"). Each end alone is a transaction of two round trips on a pooled connection; at 200 runs
// in a worker, ~100 ends a second each held a connection through two turns of a busy loop, and
// the rest of the process (its starts, its event writes) waited for the pool. Here the ends asked
// for while a batch is under way wait for it, then go as one transaction on one connection: every
// end's conditional update at once, then every winner's statement and hand-on with the COMMIT
// behind them — two round trips for the batch. Each end keeps its own guard (a run cancelled
// meanwhile gets null, as alone). A batch that fails is tried again end by end, so that one run's
// bad write (a participant's part) fails that run alone. On PGlite (one connection, in process)
// the batch awaits each statement, and saves each end its own BEGIN and COMMIT. Inside a
// transaction already under way, an end goes alone (`finish`).

/** At most this many ends in one transaction (on the embedded database, one call that others wait behind). */
const MAX_BATCH = 32;

interface End {
  id: string;
  outcome: Outcome;
  guard: FinishGuard;
  run?: RunTail;
  resolve: (row: ExecutionRow | null) => void;
  reject: (err: unknown) => void;
}

class Finishes {
  private queue: End[] = [];
  private readonly kick = batches(
    () => this.queue.length > 0,
    () => this.finishBatch(),
  );

  constructor(private readonly db: Db) {}

  add(end: End): void {
    this.queue.push(end);
    // On the embedded database, a batch is one turn of the background line (db/lanes.ts), not
    // of the line of the request that happened to ask first.
    inLane(BACKGROUND, this.kick);
  }

  private async finishBatch(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 1) return this.alone(batch[0]!);
    let ended: { row: ExecutionRow | null; parts: StatementPart[] }[];
    try {
      ended = await this.together(batch);
    } catch {
      await Promise.all(batch.map((end) => this.alone(end)));
      return;
    }
    batch.forEach((end, i) => {
      const { row, parts } = ended[i]!;
      if (row) committed(parts);
      end.resolve(row);
    });
  }

  private alone(end: End): Promise<void> {
    return finish(this.db, end.id, end.outcome, end.guard, undefined, end.run).then(end.resolve, end.reject);
  }

  /** The batch in one transaction; what each end moved (null: its guard did not hold) and its parts. */
  private async together(batch: End[]): Promise<{ row: ExecutionRow | null; parts: StatementPart[] }[]> {
    let sent: Promise<unknown> = Promise.resolve();
    const ended = await transaction(this.db, async (tx) => {
      // Every update at once (each locks its own run's row).
      const rows = (await Promise.all(batch.map((end) => endUpdate(tx, end.id, end.outcome, end.guard, end.run)))).map(([row]) => row ?? null);
      const out = batch.map((end, i) => (rows[i] ? { row: rows[i], ...endStatement(tx, rows[i], end.outcome, end.run) } : { row: null, parts: [] }));
      // The winners' writes in one order for every batch of every process (by workspace, then
      // run): two batches that charge the same budgets lock their rows in the same order.
      const winners = out.filter((o): o is { row: ExecutionRow; statement: SQL; parts: StatementPart[] } => o.row !== null);
      winners.sort((a, b) => (a.row.workspaceId === b.row.workspaceId ? (a.row.id < b.row.id ? -1 : 1) : a.row.workspaceId < b.row.workspaceId ? -1 : 1));
      const inLine = winners.filter((w) => w.row.scheduleId === null);
      if (endsPipelined(tx)) {
        sent = sendInOrder(tx, inLine.flatMap((w) => endsInOrder(w.row, w.statement)));
        sent.catch(() => {}); // awaited below, after the COMMIT; never unhandled meanwhile
      } else for (const w of inLine) await endAwaited(tx, w.row, w.statement);
      // A run a schedule started hands its schedule's line on too, which reads before it writes.
      for (const w of winners.filter((x) => x.row.scheduleId !== null)) await endAwaited(tx, w.row, w.statement);
      return out;
    });
    // A statement that failed made the COMMIT roll everything back: its error is the batch's.
    await sent;
    return ended;
  }
}

const all = new WeakMap<Db, Finishes>();

/**
 * A worker's usual end of a run (no `extra` write): `finish`, in one transaction with the other
 * ends of this process asked for meanwhile.
 */
export function finishTogether(db: Db, id: string, outcome: Outcome, guard: FinishGuard, run?: RunTail): Promise<ExecutionRow | null> {
  if (inTransaction(db)) return finish(db, id, outcome, guard, undefined, run);
  let f = all.get(db);
  if (!f) all.set(db, (f = new Finishes(db)));
  const finishes = f;
  return new Promise((resolve, reject) => finishes.add({ id, outcome, guard, run, resolve, reject }));
}
