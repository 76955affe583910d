// Small helpers shared by the parts of `npm run bench`: ports, child processes, statistics.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `n` distinct free ports, all picked before any server starts, so no two are handed the same one. */
export async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}

export async function waitFor(url: string, child: ChildProcess) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${url}`);
}

/** The node flags of `npm start` and `npm run worker` (package.json), so the bench measures what they run. */
export const SERVICE_NODE_FLAGS = (() => {
  const start = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(' ').filter((w) => w.startsWith('--'));
})();

/** BENCH_CPU_PROF=<dir>: node's flags for a process that writes a V8 CPU profile there when it exits. */
export const cpuProfFlags = () => (process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []);

/**
 * A service process run as `npm start` (`main`) or `npm run worker` (`worker`) run it — the
 * compiled server through server/processes/launch.js, with their node flags — by node itself
 * (not npm), so SIGTERM reaches it and it shuts down cleanly. `pipe`: its stdout is a pipe (to
 * watch its log), forwarded but for info lines. `detached`: in a process group of its own (its
 * pid), so its CPU can be read as the group's.
 */
export function spawnService(entry: 'main' | 'worker', env: NodeJS.ProcessEnv, pipe = false, detached = false) {
  const prof = cpuProfFlags();
  const args = [...SERVICE_NODE_FLAGS, ...(process.env.BENCH_EXTRA_FLAGS?.split(' ').filter(Boolean) ?? []), ...prof, 'server/processes/launch.js', ...(entry === 'worker' ? ['worker'] : [])];
  const child = spawn(process.execPath, args, { env, detached, stdio: ['ignore', pipe ? 'pipe' : 'inherit', 'inherit'] });
  child.stdout?.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line && !line.includes('"level":30')) console.log(line);
  });
  return child;
}

export const stopped = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));

/** SIGTERM to each, then wait (at most 10 s) until they have exited. */
export async function stopAll(children: ChildProcess[]) {
  for (const c of children) c.kill('SIGTERM');
  await Promise.race([Promise.all(children.map(stopped)), sleep(10_000)]);
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Nearest-rank percentile (p in 0–100). */
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! : NaN;
};

export const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** Resident memory of a process in MB (VmRSS from /proc), NaN when it cannot be read. */
export function rssMb(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

/**
 * The JS heap a process holds after a full garbage collection, in MB: its inspector is opened
 * (SIGUSR1, on the `--inspect-port` it was started with through NODE_OPTIONS) and asked to
 * collect, then for its heap usage. RSS alone says little about what is held: V8 keeps the
 * heap it grew to.
 */
export async function heapAfterGcMb(pid: number, inspectPort: number): Promise<number> {
  process.kill(pid, 'SIGUSR1');
  let target: { webSocketDebuggerUrl: string } | undefined;
  for (let i = 0; i < 100 && !target; i++) {
    target = await fetch(`http://127.0.0.1:${inspectPort}/json/list`)
      .then((r) => r.json() as Promise<{ webSocketDebuggerUrl: string }[]>)
      .then((list) => list[0])
      .catch(() => undefined);
    if (!target) await sleep(50);
  }
  if (!target) throw new Error(`the inspector of ${pid} did not open on ${inspectPort}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)));
  const pending = new Map<number, (result: unknown) => void>();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  };
  let next = 0;
  const send = (method: string) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method }));
    });
  try {
    await send('HeapProfiler.collectGarbage');
    const usage = (await send('Runtime.getHeapUsage')) as { usedSize: number };
    return usage.usedSize / 1024 / 1024;
  } finally {
    ws.close();
  }
}
