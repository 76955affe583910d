import type { Db } from '../../../db/client';
import { env } from '../../platform/env.js';
import { log } from '../../platform/log';
import { CHANNELS, type Bus } from '../../platform/notify';
import { repeat } from '../../platform/repeat';
import { drivable, stepExperiment } from './driver';
import { rulesWithWork, stepRule } from './online';

// The evals worker of a worker process (docs/evals.md): experiments' steps (driver.ts) and online
// rules' scoring (online.ts). Woken by `aas_evals` (an experiment created, cancelled, or one of
// its runs or judges ended; a rule sampled a run), and swept every SWEEP_MS for what a signal
// missed (a lapsed lease of a dead process, a restart). One step at a time per experiment or
// rule in this process: a wake during a step runs one more step after it, never two at once;
// at most MAX_AT_ONCE experiments and rules step at once, the rest wait their turn.

export const SWEEP_MS = 2_000;
const MAX_AT_ONCE = 8;
/**
 * A rule's runs are scored this long after the first wake-up, in one batch with the runs that
 * ended meanwhile: nobody waits on an online score, and a batch costs a run a fraction of what
 * scoring it alone would (docs/evals.md, "Online scoring").
 */
export const ONLINE_GATHER_MS = 250;

export function startEvals(db: Db, bus: Bus): () => Promise<void> {
  const busy = new Map<string, Promise<void>>();
  const gathering = new Set<string>();
  const again = new Set<string>();
  const waiting: string[] = [];
  let stopped = false;

  const step = async (id: string): Promise<void> => {
    if (id.startsWith('exp_')) return stepExperiment(db, id);
    if (id.startsWith('evr_') && (await stepRule(db, id))) again.add(id);
  };
  const run = (id: string) => {
    const p = (async () => {
      do {
        again.delete(id);
        try {
          await step(id);
        } catch (err) {
          log.error({ err, id }, 'evals step failed');
        }
      } while (again.has(id) && !stopped);
    })().finally(() => {
      busy.delete(id);
      const next = waiting.shift();
      if (next && !stopped) start(next);
    });
    busy.set(id, p);
  };
  const kick = (id: string) => {
    if (stopped) return;
    // ONLINE_SCORING=off: another worker scores the rules' runs.
    if (id.startsWith('evr_') && env.ONLINE_SCORING === 'off') return;
    if (id.startsWith('evr_') && !busy.has(id)) {
      if (gathering.has(id)) return;
      gathering.add(id);
      setTimeout(() => {
        gathering.delete(id);
        start(id);
      }, ONLINE_GATHER_MS).unref();
      return;
    }
    start(id);
  };
  const start = (id: string) => {
    if (stopped) return;
    if (busy.has(id)) again.add(id);
    else if (busy.size >= MAX_AT_ONCE) {
      if (!waiting.includes(id)) waiting.push(id);
    } else run(id);
  };

  const off = bus.subscribe(CHANNELS.evals, kick);
  const stop = repeat(
    async () => {
      try {
        for (const id of [...(await drivable(db)), ...(env.ONLINE_SCORING === 'on' ? await rulesWithWork(db) : [])]) kick(id);
      } catch (err) {
        log.error({ err }, 'evals sweep failed');
      }
    },
    () => SWEEP_MS,
    { now: true },
  );
  return async () => {
    stopped = true;
    off();
    await stop();
    await Promise.allSettled([...busy.values()]);
  };
}
