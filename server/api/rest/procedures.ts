import type { Context } from '../trpc/init';
import { createCallerFactory } from '../trpc/init';
import { appRouter } from '../trpc/router';
import { json, type JsonAnswer } from './answer';
import type { Query } from './body';
import type { ProcedureTarget } from './routes';

// Procedure routes: the procedure is called through a tRPC caller with the input the handler
// read and checked (the query of GET and DELETE, the JSON body of POST and PATCH, and the path
// parameters over either), and its output is the answer, with the route's success status.
// Nothing is coerced here: query schemas coerce their own parameters (`limit`), bodies never.

const createCaller = createCallerFactory(appRouter);
type Caller = ReturnType<typeof createCaller>;
type Call = (input: unknown) => Promise<unknown>;

/** The caller's function at a procedure's path (`agents.list` → caller.agents.list). */
function at(caller: Caller, segments: string[]): Call {
  let node: unknown = caller;
  for (const segment of segments) node = (node as Record<string, unknown>)[segment];
  return node as Call;
}

/**
 * A query without its empty parameters (`?after=` is no `after`), except `limit`: a number left
 * empty is refused by its parser as `limit=x` is, not read as the default (docs/decisions.md).
 */
function present(query: Query): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of Object.keys(query)) if (query[key] !== '' || key === 'limit') out[key] = query[key]!;
  return out;
}

export async function callProcedure(
  target: ProcedureTarget,
  successStatus: number,
  context: Context,
  input: { query: Query; body?: Record<string, unknown>; params: Record<string, string> },
): Promise<JsonAnswer> {
  const fields = input.body ?? present(input.query);
  const output = await at(createCaller(context), target.segments)({ ...fields, ...input.params });
  return json(successStatus, output ?? null);
}
