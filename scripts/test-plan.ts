import fs from 'node:fs';
import path from 'node:path';

// Which test files run where (docs/testing.md). A unit file (`*.test.ts`) runs once. An
// integration file (`*.int.test.ts`) runs on both databases unless its first line says otherwise:
//   // test: once       engine-agnostic (HTTP, validation, keys and scopes, the client, the docs…):
//                       once, on PostgreSQL, where a file costs half what it costs on PGlite
//   // test: postgres   PostgreSQL only by nature (its stores, its connections, Redis beside it)
//   // test: pglite     the embedded database only (its data dir, its template, the admin CLI on it)
//   // test: processes  several real server processes on one PostgreSQL database: one at a time
// and `shared` after it (`// test: once, shared`; `// test: shared` for both databases): the file
// uses the default server (`startServer()`, the dashboard's API on) and may share it and its
// process with other such files, each in workspaces of its own (test/harness.ts).
// A file that tests SQL, locking, NOTIFY, the job queue, the rate-limit stores or a start-up path
// runs on both (no line), so that what can differ between the engines is tested on each.

export type Placement = 'unit' | 'both' | 'once' | 'postgres' | 'pglite' | 'processes';

const MARK = /^\/\/ test: (?:(once|postgres|pglite|processes)\b)?(?:,? ?(shared)\b)?/;

/** A unit file shares a process with other unit files unless its first line is `// test: alone` (it sets the environment the server's modules read once). */
const ALONE = /^\/\/ test: alone\b/;

export function placement(root: string, file: string): { placement: Placement; shared: boolean } {
  const first = fs.readFileSync(path.join(root, file), 'utf8').split('\n', 1)[0] ?? '';
  if (!file.endsWith('.int.test.ts')) return { placement: 'unit', shared: !ALONE.test(first) };
  const [, where, shared] = MARK.exec(first) ?? [];
  return { placement: (where as Placement | undefined) ?? 'both', shared: shared === 'shared' && where !== 'processes' };
}

// The slowest files start first: started last, one of them ran on alone at the end of a pass
// while the other slots had nothing left to do.
const SLOW_FIRST = [
  // Waits for a real minute boundary (up to 60 s, mostly idle): started first, it overlaps the rest.
  'test/schedules/processes.int.test.ts',
  // Waits out a 429's Retry-After of up to a minute (mostly idle).
  'test/sdk/client.int.test.ts',
  'test/sdk/examples.int.test.ts',
  'test/secrets/wrong-key.int.test.ts',
  'test/secrets/processes.int.test.ts',
  'test/lifecycle.int.test.ts',
  'db/pglite-init.int.test.ts',
  'test/executions/streams.int.test.ts',
  'test/budgets/budgets-enforcement.int.test.ts',
  'test/webhooks/private-urls.int.test.ts',
  'test/signup/processes.int.test.ts',
  'test/webhooks/delivery.int.test.ts',
  'test/executions/approvals-scale.int.test.ts',
  'test/webhooks/processes.int.test.ts',
  'test/multiprocess.int.test.ts',
  'test/budgets/budgets-scale.int.test.ts',
  'test/executions/scale-out.int.test.ts',
  'test/executions/fairness-processes.int.test.ts',
  'test/usage/processes.int.test.ts',
  'test/usage/executions.int.test.ts',
  'test/start.int.test.ts',
].map((f) => path.join(...f.split('/')));

/**
 * PostgreSQL connections a file holds beyond a test server's, where its placement does not say so:
 * files that are not `processes` files but start server processes of their own, two at a time
 * (16 connections each: the pool, pg-boss, LISTEN, the claims' connection) beside the test's own.
 */
export const CONNECTIONS_HELD: Record<string, number> = Object.fromEntries(
  ['test/secrets/processes.int.test.ts', 'test/secrets/wrong-key.int.test.ts'].map((f) => [path.join(...f.split('/')), 2 * 16 + 4]),
);

/**
 * Files that spend most of their time waiting on a real clock, and run beside the slots rather
 * than in one: test/sdk/client.int.test.ts waits out a 429's Retry-After (~63 s, a few of CPU).
 */
export const WAITING = ['test/sdk/client.int.test.ts'].map((f) => path.join(...f.split('/')));

export const slowFirst = (files: string[]) => [...SLOW_FIRST.filter((f) => files.includes(f)), ...files.filter((f) => !SLOW_FIRST.includes(f))];

/**
 * The multi-process files first (one at a time, each taking two slots, ~140 s in all: started
 * first, they run beside the rest instead of after it), then the slowest, then the others.
 */
export const order = (files: string[], isProcesses: (file: string) => boolean) => {
  const slow = slowFirst(files);
  return [...slow.filter(isProcesses), ...slow.filter((f) => !isProcesses(f))];
};
