import { getServerSession, type NextAuthOptions, type Session } from 'next-auth';
import type { Database } from '../../db/client';
import type { AuthGuards } from '../modules/auth/guards';
import { createAuthOptions } from '../modules/auth/options';

// What code running inside Next may use of its process: the database and the sign-in guards,
// nothing else (never the engine, the job queue or the streams: those reach the node edge's
// handlers, REST and /api/trpc and the dashboard's event stream, in their context, built in
// processes/). Next evaluates our modules several times in one process (the custom server,
// route-handler chunks, page chunks: docs/platform-notes.md), so a module-level `let` would
// exist once per copy; this one slot lives on globalThis, which exists once. Set by
// processes/boot.ts; read by the pages (`currentSession`, `pageDatabase`) and next-auth's own
// route (`nextAuthOptions`): docs/decisions.md, "No process locator".

export interface NextHandle {
  database: Database;
  authGuards: AuthGuards;
}

interface Slot {
  handle?: NextHandle;
  options?: NextAuthOptions;
}

const KEY = Symbol.for('agent-service.next-handle');

function slot(): Slot {
  const g = globalThis as unknown as Record<symbol, Slot | undefined>;
  return (g[KEY] ??= {});
}

export function setNextHandle(handle: NextHandle | undefined): void {
  slot().handle = handle;
}

/** The handle the server opened at start-up (undefined before that, and after it closed). */
export function peekNextHandle(): NextHandle | undefined {
  return slot().handle;
}

function handle(): NextHandle {
  const h = slot().handle;
  if (!h) throw new Error('The process is not open: the server opens it at start-up');
  return h;
}

/** The process's database, for Next's pages. */
export const pageDatabase = async (): Promise<Database> => handle().database;

/** next-auth's options for its own route (sign-in, callbacks, sign-out) and the pages. */
export function nextAuthOptions(): NextAuthOptions {
  const s = slot();
  return (s.options ??= createAuthOptions({ db: () => handle().database.db, signIn: () => s.handle?.authGuards.signIn }));
}

/** The current session in a server component or a next-auth route (null when signed out). */
export async function currentSession(): Promise<Session | null> {
  const session = await getServerSession(nextAuthOptions());
  return session?.userId ? session : null;
}
