import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../platform/errors';
import type { CallUsage, RunContext, RunParticipant, RunPart, StatementPart } from '../vocabulary/participants';
import { sendDueAlerts } from './alerts';
import { blockedMessage, blockingBudget, charge, checkBudgets, countedBy, foldedCharge, FRESH_MS, isUnpricedSql, type Blocking } from './ledger';
import { estimateTokens, reserveCall } from './reserve';

// The budgets' part in a run (docs/budgets.md), through the run-participant contract
// (vocabulary/participants.ts):
//   - the start: a `block` budget that refuses the run is read by the start statement itself
//     (402 before anything is written), and, for a run started in place or claimed by a worker
//     (the claim reads the same columns), whether any budget counts it: that reading stands for
//     the check before its first model call (`FRESH_MS`);
//   - before each model call, one read of the ledger (a `block` budget reached refuses it), and
//     when a `block` budget counts the run, the call's worst case reserved on it (reserve.ts: the
//     call's answer then limited to what is left; while calls in flight hold the room, the run
//     waits for them to settle);
//   - after each call, its cost charged to every budget counting the run, its reservation deleted
//     in the same statement, and the alerts that charge crossed sent. The run's last call is
//     charged in the statement that finishes the run (no statement of its own); one the finish
//     did not take is charged on its own. A run no budget counts is not charged.

/**
 * A verdict the start read in its own transaction: no `block` budget refused the run, and
 * whether any counts it. It stands for the check before the first model call when that call
 * follows within `FRESH_MS` of it.
 */
interface StartVerdict {
  counted: boolean;
  /** A `block` budget counts the run: each call reserves its worst case first (reserve.ts). */
  blocks: boolean;
  /** `performance.now()` when it was read. */
  at: number;
}

export const budgetsParticipant: RunParticipant<StartVerdict> = {
  name: 'budgets',
  atStart(query) {
    return {
      columns: {
        // A `block` budget that refuses the run: 402 before anything is written.
        blocking: blockingBudget(query, isUnpricedSql(query.model, query.environment)),
        // Whether any budget counts it (a run whose first call follows at once uses it: that call's check).
        ...(query.inPlace ? { counted: countedBy(query) } : {}),
      },
      read({ blocking, counted }) {
        if (blocking) throw new ApiError('budget_exceeded', blockedMessage((typeof blocking === 'string' ? JSON.parse(blocking) : blocking) as Blocking));
        return { counted: counted !== null && counted !== undefined, blocks: counted === 'block', at: performance.now() };
      },
    };
  },
  run: (context) => budgetPart(context),
};

function budgetPart({ db, row, model, deadline, signal, started }: RunContext<StartVerdict>): RunPart {
  const scope = { workspaceId: row.workspaceId, environment: row.environment, agentId: row.agentId, keyId: row.keyId };
  let start = started;
  let counted = true;
  /** A reservation of this run is held (released with the next charge). */
  let reserved = false;
  /** The last call's usage, not charged yet: folded into the finish, or charged on its own. */
  let pending: CallUsage | null = null;
  /** What `atFinish` handed the finish statement. */
  let folded: CallUsage | null = null;
  const release = () => (reserved ? ((reserved = false), row.id) : undefined);
  const chargeNow = async (usage: CallUsage) => {
    const due = await charge(db, scope, { model, ...usage }, release());
    if (due.length > 0) await sendDueAlerts(db, due);
  };
  const flush = async () => {
    const usage = pending;
    pending = null;
    if (usage) await chargeNow(usage);
  };
  return {
    async beforeCall(call) {
      await flush();
      // The first call right after a start in place or a claim: their verdict is this check.
      const fresh = start && performance.now() - start.at < FRESH_MS ? start : undefined;
      start = undefined;
      let blocks: boolean;
      if (fresh) {
        counted = fresh.counted;
        blocks = fresh.blocks;
      } else {
        const verdict = await checkBudgets(db, scope, model);
        counted = verdict.counted;
        if (verdict.blocking) return { refusal: { code: 'budget_exceeded', message: blockedMessage(verdict.blocking) } };
        blocks = verdict.blocks;
      }
      if (!blocks) return {};
      const inputTokens = estimateTokens(await call.prompt());
      for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
        const r = await reserveCall(db, scope, { executionId: row.id, model, inputTokens, expiresAt: deadline });
        if (r.kind === 'refused') return { refusal: { code: 'budget_exceeded', message: r.message } };
        if (r.kind === 'reserved') {
          reserved = r.maxOutputTokens !== null;
          return r.maxOutputTokens === null ? {} : { maxOutputTokens: r.maxOutputTokens };
        }
        // Calls in flight hold the room: wait for them to settle (a cancel or the timeout ends the wait).
        await sleep(wait * (0.5 + Math.random()), undefined, { signal });
      }
    },
    async afterCall(usage, last) {
      if (!counted) return;
      if (!last) return chargeNow(usage);
      pending = pending ? { inputTokens: pending.inputTokens + usage.inputTokens, outputTokens: pending.outputTokens + usage.outputTokens } : usage;
    },
    atFinish(): StatementPart | undefined {
      folded = pending;
      pending = null;
      if (!folded) return undefined;
      const c = foldedCharge(scope, { model, ...folded }, release());
      return { watched: [{ write: c.write, signal: c.signal }], ...(c.release ? { writes: [c.release] } : {}) };
    },
    async settle(finished) {
      // Not finished by this run (cancelled, declared lost, or the finish failed): the call is charged all the same.
      if (folded && !finished) await chargeNow(folded);
      folded = null;
      // A last call no finish took (a pause, a cancel, an error) is charged now.
      await flush();
    },
  };
}
