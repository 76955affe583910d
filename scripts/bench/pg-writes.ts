// The writes this process makes to a PostgreSQL server, and the statements each carried (read
// from the frontend messages: Parse names a statement's text, Bind runs one by name, Query runs
// text), for scripts/bench/starts.ts (STARTS_WRITES=1). Each write is a system call and a wake-up
// of the server: statements that share a write cost one.
import net from 'node:net';

/** Watches from now (to learn the texts of statements prepared before counting); counts between `start` and `report`. */
export function watchWrites(port: number): { start(): void; report(per: number): void } {
  const texts = new Map<string, string>();
  const byShape = new Map<string, number>();
  let writes = 0;
  let counting = false;
  const original = net.Socket.prototype.write;
  const short = (text: string) => text.replace(/\s+/g, ' ').slice(0, 50);
  net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
    const data = args[0];
    if (this.remotePort === port && Buffer.isBuffer(data)) {
      if (counting) writes++;
      const carried: string[] = [];
      for (let at = 0; at + 5 <= data.length; ) {
        const type = String.fromCharCode(data[at]!);
        const body = data.subarray(at + 5, at + 1 + data.readInt32BE(at + 1));
        const cstring = (from: number): [string, number] => {
          const end = body.indexOf(0, from);
          return [body.toString('utf8', from, end), end + 1];
        };
        if (type === 'P') {
          const [name, next] = cstring(0);
          const [text] = cstring(next);
          if (name) texts.set(name, text);
          else carried.push(short(text));
        } else if (type === 'B') {
          const [name] = cstring(cstring(0)[1]);
          if (name) carried.push(short(texts.get(name) ?? `(prepared earlier: ${name})`));
        } else if (type === 'Q') carried.push(short(cstring(0)[0]));
        at += 1 + body.length + 4;
      }
      const shape = carried.join(' | ');
      if (counting) byShape.set(shape, (byShape.get(shape) ?? 0) + 1);
    }
    return (original as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof original;
  return {
    start() {
      counting = true;
      writes = 0;
      byShape.clear();
    },
    report(per: number) {
      counting = false;
      console.log(`${(writes / per).toFixed(2)} writes to PostgreSQL a start; the most frequent, per start:`);
      for (const [shape, n] of [...byShape].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${(n / per).toFixed(2)}  ${shape.slice(0, 300)}`);
    },
  };
}
