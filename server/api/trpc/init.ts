import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import type { Db } from '../../../db/client';
import type { Actor, RequestContext } from '../../modules/actor';
import { ApiError, insufficientScope, type DeclaredErrorCode, type ErrorStatus } from '../../platform/errors';
import { holdsScope, type Scope } from '../../modules/vocabulary/scopes';
import { roleAllows, roleRefusal } from '../../modules/vocabulary/roles';
import type { RateLimits } from '../../modules/ratelimit';
import type { Services } from '../../modules/runtime';
import { chargeCostlyQuery, chargeDashboardMutation } from '../../modules/ratelimit/dashboard';
import { badTextError, findBadText } from '../../platform/text-input';
import { inputError } from './input-errors';

export interface Context {
  requestId: string;
  db: Db;
  /** The verified key (REST) or the signed-in user (dashboard); null when neither. */
  actor: Actor | null;
  /** The process's job queue, bus, live events, open streams and execution pool. */
  services: Services;
  /** The client's address (per-address limits of the dashboard's sign-up); absent on REST. */
  clientAddress?: string;
  /** Where the request came from (the audit log's context), signed in or not; the actor carries it too. */
  request?: RequestContext;
  /**
   * The dashboard face only: the plan limits its mutations are charged against. Absent on REST,
   * which charges the request's key before any procedure runs.
   */
  limits?: RateLimits;
  /**
   * REST only: how a procedure answers other than with its output and its success status —
   * execute's `wait` and `stream` (server/api/rest/procedures.ts). The dashboard face has none.
   */
  reply?: Reply;
}

/** A long answer a procedure asks its REST edge for, instead of its output (it still returns one). */
export interface Reply {
  /** 200 with the execution's events as they happen, until its terminal event (server/api/sse.ts); `done` frees what the stream held. */
  stream(executionId: string, opts: { stop: AbortSignal; done(): void; afterSeq?: number }): void;
  /** 200 with the execution `settle` resolves to (the client leaving aborts its signal); `done` frees what the wait held. */
  wait(executionId: string, settle: (signal: AbortSignal) => Promise<unknown>, done: () => void): void;
}

export type Meta = OpenApiMeta<{
  /** The scope a key needs for this procedure (the dashboard user holds every scope). */
  scope?: Scope;
  /** A second scope that also grants it (budgets' reads: `budgets:manage` or `analytics:read`). */
  alsoScope?: Scope;
  /** HTTP status of success on the REST face (201 for creations). */
  successStatus?: number;
  /**
   * The codes this procedure may answer beyond those every route can (errors.ts `declared`):
   * `resource_not_found`, a 409 state conflict… Only these are documented on its operation.
   */
  errors?: readonly DeclaredErrorCode[];
  /**
   * A dashboard query that costs real CPU (a schedule's preview computes occurrences): a
   * signed-in user may call it this many times a minute (429 beyond). Queries are otherwise not
   * limited by plan; mutations are.
   */
  costly?: { name: string; perMinute: number };
  /**
   * The procedure may also answer 200 with its output or with an event stream (`Reply`): the
   * OpenAPI document adds that 200, with both media types, described so.
   */
  eventStream?: { description: string };
}>;

/** The tRPC code of each HTTP status of the catalogue (tRPC maps it back to the same status). */
export const TRPC_CODE: Record<ErrorStatus, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  // 408 and 431 come from the HTTP server itself (platform/http/client-error.ts), never from a procedure.
  408: 'TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'BAD_REQUEST',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export function toTRPCError(err: ApiError): TRPCError {
  return new TRPCError({ code: TRPC_CODE[err.status], message: err.message, cause: err });
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const api = error.cause instanceof ApiError ? error.cause : null;
      return {
        ...shape,
        // Never leak internals to the browser either.
        message: api ? api.message : error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal error' : shape.message,
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          apiError: api ? { type: api.type, code: api.code, param: api.param ?? null } : null,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure reports failures as an ApiError, whichever face it is called through:
 * validation failures become `missing_required_field` / `unknown_parameter` /
 * `invalid_parameter` with the field's path, and a service's ApiError keeps its status.
 */
const apiErrors = t.middleware(async ({ next, getRawInput }) => {
  const result = await next();
  if (result.ok) return result;
  const cause = result.error.cause;
  if (cause instanceof ApiError) throw toTRPCError(cause);
  // Input validation fails as BAD_REQUEST; an output that fails its schema is our bug (500).
  if (cause instanceof ZodError && result.error.code === 'BAD_REQUEST') {
    throw toTRPCError(inputError(cause.issues, await getRawInput().catch(() => undefined)));
  }
  return result;
});

/**
 * Every string and key of the input must be text PostgreSQL can store — well-formed Unicode,
 * no NUL (server/platform/text-input.ts) — on every procedure of both faces: invalid_parameter with the
 * field's path, never a 500 from the database.
 */
async function checkStorableText(getRawInput: () => Promise<unknown>): Promise<void> {
  const found = findBadText(await getRawInput().catch(() => undefined));
  if (found) throw toTRPCError(badTextError(found));
}

const storableText = t.middleware(async ({ next, getRawInput }) => {
  await checkStorableText(getRawInput);
  return next();
});

const base = t.procedure.use(apiErrors);

export const publicProcedure = base.use(storableText);

/**
 * Needs a caller (key or user) holding the scope named in the procedure's meta. The checks run
 * in the order of REST's: who → rate limit → scope → input, in one middleware (each link of
 * tRPC's chain copies the context and its options: five links cost a list request ~3 % of
 * its CPU). The dashboard's mutations count against the workspace's plan, per environment, as
 * a key's requests do on REST (docs/decisions.md, "Dashboard"); its queries (the pages' own
 * polling) are not limited by plan. REST calls were charged to their key already and carry no
 * `limits`.
 */
export const apiProcedure = base.use(async ({ ctx, meta, type, next, getRawInput }) => {
  const actor = ctx.actor;
  // REST requests always arrive with a verified key; this is a signed-out dashboard call.
  if (!actor) throw toTRPCError(new ApiError('unauthenticated', 'Sign in to continue'));
  if (type === 'mutation' && ctx.limits && actor.kind === 'user') {
    const refused = await chargeDashboardMutation(ctx.limits, ctx.db, actor);
    if (refused) throw toTRPCError(refused);
  }
  if (meta?.costly && ctx.limits && actor.kind === 'user') {
    const refused = await chargeCostlyQuery(ctx.limits, actor, meta.costly);
    if (refused) throw toTRPCError(refused);
  }
  if (meta?.scope) {
    // A key by its scopes; a member of the workspace by their role (vocabulary/roles.ts: docs/teams.md).
    if (actor.kind === 'key' && !holdsScope(actor.scopes, meta)) throw toTRPCError(insufficientScope(meta.scope, meta.alsoScope));
    if (actor.kind === 'user' && !roleAllows(actor.role, meta, type)) throw toTRPCError(new ApiError('insufficient_role', roleRefusal(actor.role, roleNeeds(meta.scope, type))));
  }
  await checkStorableText(getRawInput);
  return next({ ctx: { actor } });
});

/** Dashboard only: a signed-in user. */
export const userProcedure = base.use(({ ctx, next }) => {
  const actor = ctx.actor;
  if (!actor || actor.kind !== 'user') {
    throw toTRPCError(new ApiError('unauthenticated', 'Sign in to continue'));
  }
  return next({ ctx: { ...ctx, actor } });
}).use(storableText);

/** What a refused procedure does, in words, and who may. */
function roleNeeds(scope: Scope, type: string): string {
  if (scope === 'audit:read') return 'read the audit log: owners and admins can';
  if (scope === 'keys:manage') return 'see or manage API keys: developers, admins and owners can';
  if (type === 'query') return 'read this';
  return scope.startsWith('agents:') ? 'change anything: developers, admins and owners can' : `do this: it needs an admin or an owner`;
}
