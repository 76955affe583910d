/**
 * Ids asked about recently, remembered for a while and at most `max` of them: a bounded, expiring
 * set for signals that may arrive just before what they are about (a follow request for a run
 * its worker is still claiming: executions/pool.ts). The oldest go first when full.
 */
export class RecentIds {
  private readonly at = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  add(id: string): void {
    // Re-added: it moves to the end (the newest).
    this.at.delete(id);
    this.at.set(id, this.now());
    while (this.at.size > this.max) this.at.delete(this.at.keys().next().value!);
  }

  /** Whether `id` was added within the last ttlMs; it is forgotten either way. */
  take(id: string): boolean {
    const when = this.at.get(id);
    if (when === undefined) return false;
    this.at.delete(id);
    return this.now() - when <= this.ttlMs;
  }

  get size(): number {
    return this.at.size;
  }
}
