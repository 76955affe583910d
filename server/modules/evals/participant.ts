import { sql } from 'drizzle-orm';
import { frozen } from '../../../db/rows';
import { CHANNELS, notifyCall } from '../../platform/notify';
import type { RunParticipant, StatementPart } from '../vocabulary/participants';

// Evals' part in a run (docs/evals.md), through the run-participant contract
// (vocabulary/participants.ts), in the statement that finishes it — so it never delays the run:
//   - an experiment's run, or a judge's, wakes the driver of its experiment or rule (`aas_evals`);
//   - any other run of an agent with online scoring rules is sampled: a rule's `sampleRate` of
//     them is queued in `online_scores` (one insert-select by the agent's rules, nothing when it
//     has none) and the worker that scores them is woken.

const queued = new Map<string, ReturnType<typeof frozen>>();

/** The wake-up for the sampled rows of the write named `alias`: one signal, only when a rule sampled the run. */
function sampledSignal(alias: string) {
  let signal = queued.get(alias);
  if (!signal) {
    signal = frozen(sql`(select ${notifyCall(CHANNELS.evals, sql`min(q.rule_id)`)} from ${sql.raw(alias)} q having count(*) > 0)`);
    queued.set(alias, signal);
  }
  return signal;
}

export const evalsParticipant: RunParticipant = {
  name: 'evals',
  at(moment, row): StatementPart | undefined {
    if (moment !== 'finished') return undefined;
    const trigger = row.trigger;
    if (trigger.type === 'experiment') return { signals: [notifyCall(CHANNELS.evals, trigger.experimentId)] };
    if (trigger.type === 'judge') {
      const owner = trigger.experimentId ?? trigger.ruleId;
      return owner ? { signals: [notifyCall(CHANNELS.evals, owner)] } : undefined;
    }
    const write = sql`insert into online_scores (rule_id, execution_id)
      select r.id, ${row.id} from eval_rules r
      where r.agent_id = ${row.agentId} and r.workspace_id = ${row.workspaceId} and r.environment = ${row.environment} and random() < r.sample_rate
      on conflict do nothing returning rule_id`;
    return { watched: [{ write, signal: sampledSignal }] };
  },
};
