import type { Logger } from 'pino';

// Start-up, phase by phase: the server and the worker log one JSON line as each phase ends,
// with how long it took (`{"phase":"migrations","ms":41,"msg":"start-up: migrations applied in 41 ms"}`),
// so a slow start says where its time goes instead of sitting silent until "listening".
// The tests and the admin CLI open the runtime without it (no lines: the CLI's stdout is the key).

export interface StartupPhases {
  /** Runs one phase; when it ends, logs its name and duration (`done` says what was done). */
  run<T>(phase: string, done: string | ((result: T) => string), fn: () => T | Promise<T>): Promise<T>;
  /** Logs a phase timed elsewhere. */
  record(phase: string, done: string, ms: number): void;
  /** Milliseconds since the process started (Node's own start included). */
  sinceProcessStart(): number;
}

const round = (ms: number) => Math.round(ms);

/** `onStart` hears each phase as it begins (the server's /healthz says which one is under way). */
export function startupPhases(log: Logger, opts: { onStart?: (phase: string) => void } = {}): StartupPhases {
  const record = (phase: string, done: string, ms: number) => log.info({ phase, ms: round(ms) }, `start-up: ${done} in ${round(ms)} ms`);
  return {
    async run(phase, done, fn) {
      opts.onStart?.(phase);
      const started = performance.now();
      const result = await fn();
      record(phase, typeof done === 'string' ? done : done(result), performance.now() - started);
      return result;
    },
    record,
    // performance.now() counts from the process's time origin: its start.
    sinceProcessStart: () => round(performance.now()),
  };
}

/** What `npm start`'s launcher (launch.js) hands over: the sources' fingerprint and what it did. */
export interface LaunchInfo {
  fingerprint: string;
  serverBundle: { built: boolean; ms: number };
  /** performance.now() when it began importing the compiled server. */
  codeLoadStartedAt: number;
}

export function launchInfo(): LaunchInfo | undefined {
  return (globalThis as unknown as Record<symbol, LaunchInfo | undefined>)[Symbol.for('agent-service.launch')];
}

/**
 * The first phases, logged as the server's or worker's code begins to run: the launcher's check
 * (or compilation) of the compiled server, then loading the code (from the process's start when
 * it runs the sources under tsx).
 */
export function recordLaunch(phases: StartupPhases): void {
  const launch = launchInfo();
  if (launch) {
    const { built, ms } = launch.serverBundle;
    phases.record('serverBundle', built ? 'server compiled for these sources' : 'compiled server is current', ms);
  }
  phases.record('code', 'code loaded', phases.sinceProcessStart() - (launch?.codeLoadStartedAt ?? 0));
}

/** For callers that log nothing (tests, the admin CLI): runs each phase as is. */
export const SILENT_PHASES: StartupPhases = {
  run: (_phase, _done, fn) => Promise.resolve(fn()),
  record: () => {},
  sinceProcessStart: () => round(performance.now()),
};
