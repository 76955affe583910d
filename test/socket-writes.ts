import net from 'node:net';
import type postgres from 'postgres';

/**
 * Counts this process's writes to a postgres.js client's server (its sockets' `write` calls: one
 * each is one system call and one wake-up of the server) until `stop()`, which returns the count.
 * Whatever else writes to that server meanwhile is counted too: call it with nothing else running.
 */
export function writesTo(client: postgres.Sql): { stop(): number } {
  const port = Number((client.options as unknown as { port: number[] }).port[0]);
  const original = net.Socket.prototype.write;
  let count = 0;
  net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
    if (this.remotePort === port) count++;
    return (original as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof original;
  return {
    stop() {
      net.Socket.prototype.write = original;
      return count;
    },
  };
}
