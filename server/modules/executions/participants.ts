import type { SQL } from 'drizzle-orm';
import { writeAll } from '../../../db/rows';
import type { CallGuard, GuardVerdict } from './model-loop';
import type { ExecutionRow } from './lifecycle';
import type { RunContext, RunMoment, RunObserver, RunParticipant, RunPart, StartQuery, StatementPart } from '../vocabulary/participants';

// The engine's side of the run-participant contract (vocabulary/participants.ts): the list the
// process registered at boot, and the places of a run that ask it — the start statement
// (service.ts), the model loop's guard (runner.ts), the statements of the lifecycle's moments
// (lifecycle.ts, pause.ts). No file of executions/ names a participant.

let registered: readonly RunParticipant[] | null = null;

/** Sets the run's participants (boot, once per process; again with the same list is a no-op). */
export function registerParticipants(list: readonly RunParticipant[]): void {
  if (registered && registered !== list) throw new Error('the run participants are registered already');
  registered = list;
}

function participants(): readonly RunParticipant[] {
  // A process that runs executions without its participants would lose budgets, usage and events silently.
  if (!registered) throw new Error('no run participants are registered (server/modules/participants.ts at boot)');
  return registered;
}

/** The start statement's columns of every participant (each named `<participant>_<column>`), and their reading. */
export function startColumns(query: StartQuery): { columns: Record<string, SQL>; read(found: Record<string, unknown>): Record<string, unknown> } {
  const parts = participants().flatMap((p) => (p.atStart ? [{ name: p.name, part: p.atStart(query) }] : []));
  const columns: Record<string, SQL> = {};
  for (const { name, part } of parts) for (const [key, value] of Object.entries(part.columns)) columns[`${name}_${key}`] = value;
  return {
    columns,
    read(found) {
      const carried: Record<string, unknown> = {};
      for (const { name, part } of parts) {
        const values: Record<string, unknown> = {};
        for (const key of Object.keys(part.columns)) values[key] = found[`${name}_${key}`];
        carried[name] = part.read(values);
      }
      return carried;
    },
  };
}

/** The participants' parts in a run whose model loop begins (`started`: what the start carried, by participant). */
export function runParts(context: Omit<RunContext, 'started'>, started?: Record<string, unknown>): RunPart[] {
  return participants().flatMap((p) => {
    const part = p.run?.({ ...context, ...(started && Object.hasOwn(started, p.name) ? { started: started[p.name] } : {}) });
    return part ? [part] : [];
  });
}

/** The tools whose calls a part holds for a decision (`RunPart.holds`): the schema edited arguments must match, by tool; undefined when none holds any. */
export function heldBy(parts: RunPart[]): ((tool: string) => Record<string, unknown> | undefined) | undefined {
  const holding = parts.filter((p) => p.holds);
  if (holding.length === 0) return undefined;
  return (tool) => {
    for (const part of holding) {
      const schema = part.holds!(tool);
      if (schema) return schema;
    }
    return undefined;
  };
}

/** The model loop's guard made of the run's parts: the first refusal stops the run; the smallest answer allowed wins. */
export function callGuard(parts: RunPart[]): CallGuard | undefined {
  const before = parts.filter((p) => p.beforeCall);
  const after = parts.filter((p) => p.afterCall);
  if (before.length === 0 && after.length === 0) return undefined;
  return {
    async before(call) {
      let verdict: GuardVerdict = {};
      for (const part of before) {
        const v = await part.beforeCall!(call);
        if ('refusal' in v) return v;
        if (v.maxOutputTokens !== undefined) verdict = { maxOutputTokens: Math.min(v.maxOutputTokens, 'maxOutputTokens' in verdict ? verdict.maxOutputTokens! : Infinity) };
      }
      return verdict;
    },
    async after(usage, last) {
      for (const part of after) await part.afterCall!(usage, last);
    },
  };
}

/** The model loop's observer made of the run's parts' (undefined: none watches). */
export function observerOf(parts: RunPart[]): RunObserver | undefined {
  const all = parts.flatMap((p) => (p.observe ? [p.observe] : []));
  if (all.length <= 1) return all[0];
  return {
    callStarted: (step, call) => all.forEach((o) => o.callStarted?.(step, call)),
    firstToken: (step) => all.forEach((o) => o.firstToken?.(step)),
    callEnded: (step, end) => all.forEach((o) => o.callEnded?.(step, end)),
    toolStarted: (step, call) => all.forEach((o) => o.toolStarted?.(step, call)),
    toolEnded: (step, result) => all.forEach((o) => o.toolEnded?.(step, result)),
  };
}

/** What the parts of a run hand the next write of its events (`RunPart.atProgress`). */
export const partsInProgress = (parts: RunPart[]): StatementPart[] => parts.flatMap((p) => p.atProgress?.() ?? []);

/** What the parts of a run hand the statement that ends its attempt (the finish, or the pause). */
export const partsAtEnd = (parts: RunPart[]): StatementPart[] => parts.flatMap((p) => p.atFinish?.() ?? []);

/** What the participants join to the statement recording `moment` of the run. */
export function momentParts(moment: RunMoment, row: ExecutionRow, view: object): StatementPart[] {
  return participants().flatMap((p) => {
    const part = p.at?.(moment, row, view);
    return part ? [part] : [];
  });
}

/** Tells the parts of a statement that it committed (`StatementPart.committed`); a part's failure is its own. */
export function committed(parts: (StatementPart | undefined)[]): void {
  for (const part of parts) {
    try {
      part?.committed?.();
    } catch {
      // What a participant does after a commit never undoes the commit, nor stops the others.
    }
  }
}

/** One statement of the engine's own writes and signals and the participants' parts (db/rows.ts `writeAll`). */
export function statementWith(writes: SQL[], signals: SQL[], parts: (StatementPart | undefined)[]): SQL {
  const w = [...writes];
  const s = [...signals];
  for (const part of parts) {
    if (!part) continue;
    if (part.writes) w.push(...part.writes);
    if (part.signals) s.push(...part.signals);
    for (const watched of part.watched ?? []) {
      // `writeAll` names its writes w0, w1, … in order.
      s.push(watched.signal(`w${w.length}`));
      w.push(watched.write);
    }
  }
  return writeAll(w, s);
}
