import { queue } from '../jobs';

// The executions queue. pg-boss delivers a job at least once; our own fence (status + attempt,
// status.ts) makes a run happen at most once: a job retried after its worker died finds the
// execution `running` (the sweeper will fail it as worker_lost) or final, and does nothing.
// A job whose worker died before it claimed the run is retried and runs normally.
export const executionQueue = queue<{ executionId: string }>('executions', {
  retryLimit: 3,
  retryDelay: 1,
  // pg-boss notices a dead worker by its missing heartbeat and hands the job out again.
  heartbeatSeconds: 10,
  // Longer than the longest run (timeoutSeconds ≤ 900) plus margins.
  expireInSeconds: 1_000,
});
