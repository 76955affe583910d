// Work asked for by many callers, done in batches one at a time (the event writes of a process's
// runs: executions/appender.ts; the tails its streams read: executions/live.ts `readBatch`). `kick`
// after adding work: the batch starts after this turn (what is asked for in the same turn goes
// together), `step` takes and does one batch while `pending()` says there is work, and work added
// meanwhile waits for the batch under way, then goes in the next. `step` answers its own callers,
// failures included; one that throws anyway is logged, and the loop stays ready for the next kick.
import { log } from './log';

export function batches(pending: () => boolean, step: () => Promise<void>): () => void {
  let busy = false;
  const run = async () => {
    try {
      while (pending()) await step();
    } catch (err) {
      log.error({ err }, 'a batch failed');
    } finally {
      busy = false;
      if (pending()) kick();
    }
  };
  const kick = () => {
    if (busy) return;
    busy = true;
    setImmediate(() => void run());
  };
  return kick;
}
