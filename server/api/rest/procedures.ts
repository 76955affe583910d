import type { Context, Reply } from '../trpc/init';
import { createCallerFactory } from '../trpc/init';
import { appRouter } from '../trpc/router';
import { json, type Answer, type LongAnswer } from './answer';
import type { Query } from './body';
import { eventStreamAnswer, waitAnswer } from './execution-routes';
import type { ProcedureTarget } from './routes';

// Procedure routes: the procedure is called through a tRPC caller with the input the handler
// read and checked (the query of GET and DELETE, the JSON body of POST and PATCH, and the path
// parameters over either), and its output is the answer, with the route's success status.
// Nothing is coerced here: query schemas coerce their own parameters (`limit`), bodies never.
// A procedure may ask for a long answer instead (`ctx.reply`: execute's `wait` and `stream`),
// kept under an Idempotency-Key as a marker (`{"$stream":id}`, `{"$wait":id}`) that
// execution-routes.ts's replay turns back into the same kind of answer.

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
): Promise<Answer> {
  const fields = input.body ?? present(input.query);
  const call = (ctx: Context) => at(createCaller(ctx), target.segments)({ ...fields, ...input.params });
  if (!target.longAnswers) return json(successStatus, (await call(context)) ?? null);
  let long: LongAnswer | undefined;
  const reply: Reply = {
    stream: (id, { stop, done, afterSeq = 0 }) => {
      const marker = afterSeq > 0 ? { $stream: id, $after: String(afterSeq) } : { $stream: id };
      long = { ...eventStreamAnswer(context.services.engine, id, { stop, done, afterSeq }), marker: JSON.stringify(marker) };
    },
    wait: (id, settle, done) => {
      long = { ...waitAnswer(settle, done), marker: JSON.stringify({ $wait: id }) };
    },
  };
  const output = await call({ ...context, reply });
  return long ?? json(successStatus, output ?? null);
}
