import { performance, type EventLoopUtilization } from 'node:perf_hooks';

// How busy this process's event loop has been lately (docs/concurrency.md, "Headroom"). Background
// work that a process takes on by itself — a worker claiming queued executions — asks first, and
// waits while the loop has been busier than BUSY for the last WINDOW_MS: requests, which every
// tenant shares, keep the rest of the loop. Measured 2026-11-26 on the embedded database: with
// workspace A's 25 runs at a hosted model's pace and 1,000 of its streams open, the one process
// was busy 100 % of the time (its database runs in it too) and workspace B's list requests waited
// behind A's work, p99 0.4–2.3 s.

/** Busier than this fraction of the window, the loop has no room for more background work (EXECUTION_HEADROOM). */
export const BUSY = 0.8;
const WINDOW_MS = 1_000;
const SAMPLE_MS = 250;

export class Headroom {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly samples: number[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly busy = BUSY) {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    this.samples.push(performance.eventLoopUtilization(now, this.last).utilization);
    this.last = now;
    if (this.samples.length > WINDOW_MS / SAMPLE_MS) this.samples.shift();
  }

  /** The loop's busy fraction over the last window (0 before the first sample). */
  get utilization(): number {
    return this.samples.length === 0 ? 0 : this.samples.reduce((a, b) => a + b, 0) / this.samples.length;
  }

  /** Whether background work may be taken on now. */
  get available(): boolean {
    return this.utilization < this.busy;
  }

  /** Resolves once there is room (checked every SAMPLE_MS), or when `stopped()` says so. */
  async wait(stopped: () => boolean): Promise<void> {
    while (!this.available && !stopped()) await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }

  close(): void {
    clearInterval(this.timer);
  }
}
