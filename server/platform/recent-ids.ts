/**
 * Ids seen recently, remembered for `ttlMs` and at most `max` of them: a bounded, expiring set.
 * Used for signals that may arrive just before what they are about (a follow or cancel request
 * for a run its worker is still claiming: executions/pool.ts) and for key hashes the database did
 * not know (keys/unknown-keys.ts). The oldest go first when full. An id added at `t` is
 * remembered while now < t + ttlMs.
 */
export class RecentIds {
  // Insertion order is age order (an id added again moves to the end), so the oldest is first.
  private readonly at = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  add(id: string): void {
    this.at.delete(id);
    while (this.at.size >= this.max) this.at.delete(this.at.keys().next().value!);
    this.at.set(id, this.now());
  }

  /** Whether `id` was added less than ttlMs ago; an expired id is forgotten when asked about. */
  has(id: string): boolean {
    const when = this.at.get(id);
    if (when === undefined) return false;
    if (this.now() - when < this.ttlMs) return true;
    this.at.delete(id);
    return false;
  }

  /** Like `has`, and the id is forgotten either way. */
  take(id: string): boolean {
    const remembered = this.has(id);
    this.at.delete(id);
    return remembered;
  }

  get size(): number {
    return this.at.size;
  }
}
