import { log } from '../log';

/**
 * Whether the shared store answers. While it does not, every process counts in memory (limits
 * become per process) instead of every request failing; the outage and the recovery are each
 * logged once, not once per request.
 */
export class StoreHealth {
  private down = false;

  constructor(private readonly name: string) {}

  failed(err: unknown): void {
    if (this.down) return;
    this.down = true;
    const message = err instanceof Error ? err.message : String(err);
    log.warn({ err: message }, `${this.name} unavailable: rate limits count per process until it is back`);
  }

  ok(): void {
    if (!this.down) return;
    this.down = false;
    log.info(`${this.name} is back: rate limits are shared again`);
  }

  /** Resolves like `p`, noting whether the store answered. */
  async watch<T>(p: Promise<T>): Promise<T> {
    try {
      const value = await p;
      this.ok();
      return value;
    } catch (err) {
      this.failed(err);
      throw err;
    }
  }
}
