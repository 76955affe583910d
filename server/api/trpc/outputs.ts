import { isDeepStrictEqual } from 'node:util';
import { TRPCError } from '@trpc/server';
import type { ZodType } from 'zod';

// Each procedure declares its output schema (`.output()`): the OpenAPI document and the typed
// client are generated from it. tRPC also parses every output with it, in a middleware of each
// call; on `GET /v1/agents` (20 agents) that parse and its link of the middleware chain were
// ~10 % of a request's CPU (docs/benchmark.md, "Lists"). Outputs are views the services build
// field by field, typed by the same schemas, so the parse checks our code, not the caller's
// input. Production trusts them (the middleware is left out); development and the tests check
// every output more strictly than the parse did: it must equal its own parse — no field the
// schema would strip, no value it would change — or the call fails as our bug (a 500).
// (docs/decisions.md, "Output schemas".)

/** The middleware tRPC adds for `.output()` (its own marks it `_type: 'output'`). */
type Middleware = ((opts: { next: () => Promise<{ ok: boolean; data?: unknown }> }) => Promise<unknown>) & { _type?: string };

interface ProcedureDef {
  output?: unknown;
  middlewares: Middleware[];
}

/** An output check that refuses any difference between an output and its parse. */
function strictCheck(schema: ZodType, path: string): Middleware {
  const check: Middleware = async ({ next }) => {
    const result = await next();
    if (!result.ok) return result;
    const parsed = await schema.safeParseAsync(result.data);
    if (parsed.success && isDeepStrictEqual(parsed.data, result.data)) return result;
    throw new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Output validation failed',
      cause: parsed.success ? new Error(`${path}: the output differs from its schema's parse (a field the schema does not declare, or a value it changes)`) : parsed.error,
    });
  };
  check._type = 'output';
  return check;
}

/**
 * Sets how a router's procedures check their outputs: `trust` (production) removes tRPC's output
 * parse, `strict` replaces it with `strictCheck`. Throws when it finds no output middleware at
 * all: a tRPC that builds procedures otherwise must not turn the checks off unnoticed.
 */
export function settleOutputChecks(router: { _def: { procedures: object } }, mode: 'trust' | 'strict'): void {
  let found = 0;
  for (const [path, procedure] of Object.entries(router._def.procedures) as [string, { _def: ProcedureDef }][]) {
    const { middlewares, output } = procedure._def;
    const at = middlewares.findIndex((m) => m._type === 'output');
    if (at < 0) continue;
    found++;
    // In place: tRPC's caller for the procedure holds this same array.
    if (mode === 'trust') middlewares.splice(at, 1);
    else middlewares[at] = strictCheck(output as ZodType, path);
  }
  if (found === 0) throw new Error('settleOutputChecks: no procedure has an output middleware (has tRPC changed how it builds them?)');
}
