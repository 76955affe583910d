/**
 * How many of something each key holds in this process (connections of an address, streams or
 * waits of a workspace): a key is dropped when its count falls to zero, so the map holds only the
 * keys that hold something.
 */
export class Counts {
  private readonly n = new Map<string, number>();

  get(key: string): number {
    return this.n.get(key) ?? 0;
  }

  add(key: string): void {
    this.n.set(key, this.get(key) + 1);
  }

  remove(key: string): void {
    const left = this.get(key) - 1;
    if (left > 0) this.n.set(key, left);
    else this.n.delete(key);
  }

  /** The sum over every key. */
  get total(): number {
    let t = 0;
    for (const v of this.n.values()) t += v;
    return t;
  }
}
