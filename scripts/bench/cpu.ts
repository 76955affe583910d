// CPU time spent serving a run, read from /proc (Linux): the server process, plus the PostgreSQL
// backends of the bench database and the Redis server. Throughput on a shared 2-core machine
// moves with whatever else runs; CPU per request hardly does, so the bench prints both.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type postgres from 'postgres';

let tick: number | undefined;
/** Milliseconds per clock tick (CLK_TCK, usually 100 Hz). */
function msPerTick(): number {
  if (tick === undefined) {
    try {
      tick = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    } catch {
      tick = 10;
    }
  }
  return tick;
}

/** User + system CPU of a process in ms (0 when it cannot be read). */
export function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * msPerTick();
  } catch {
    return 0;
  }
}

/**
 * A process's CPU in ms at the scheduler's nanosecond resolution: the sum over its threads of
 * /proc/<pid>/task/<tid>/schedstat's time on a CPU (0 when it cannot be read). Fine enough to
 * count one request; a thread that has exited no longer counts.
 */
export function cpuPreciseMs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
    return ns / 1e6;
  } catch {
    return 0;
  }
}

export interface CpuSample {
  server: number;
  /** Per backend or Redis pid: its CPU so far. */
  stores: Map<number, number>;
}

/** The pids whose CPU counts as "database": the bench database's backends and the Redis server. */
export async function storePids(admin: postgres.Sql, dbName: string, redisPid: number | undefined): Promise<number[]> {
  const rows = await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${dbName}`;
  return [...rows.map((r) => r.pid), ...(redisPid ? [redisPid] : [])];
}

/** `server`: one process, or several (a web process and its workers) summed. */
export function sample(server: number | number[], pids: number[]): CpuSample {
  const servers = Array.isArray(server) ? server : [server];
  return { server: servers.reduce((sum, p) => sum + cpuMs(p), 0), stores: new Map(pids.map((p) => [p, cpuMs(p)])) };
}

/** CPU ms used between two samples: the server's, and the stores' (a backend new since `a` counts from 0). */
export function used(a: CpuSample, b: CpuSample): { server: number; stores: number } {
  let stores = 0;
  for (const [pid, ms] of b.stores) stores += Math.max(ms - (a.stores.get(pid) ?? 0), 0);
  return { server: b.server - a.server, stores };
}

/** The Redis server's pid, when it runs on this machine and answers INFO. */
export async function redisPid(url: string): Promise<number | undefined> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    return fs.existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}
