import type { IncomingMessage } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import type { OperationObject } from 'openapi3-ts/oas31';
import type { DeclaredErrorCode } from '../../platform/errors';
import type { Db } from '../../../db/client';
import type { VerifiedKey } from '../../modules/keys/service';
import type { Scope } from '../../modules/vocabulary/scopes';
import type { Services } from '../../modules/runtime';
import type { Meta } from '../trpc/init';
import type { Answer } from './answer';
import type { Query } from './body';

// The REST route table, built once: procedures with OpenAPI meta (called through a tRPC caller
// with the input the handler read: procedures.ts) and raw routes (which read their own input
// and answer a stream, or 200/202 chosen by input). Both pass the same checks first:
// route → auth → rate limit → scope; both return an Answer the handler writes.

export interface RawContext {
  req: IncomingMessage;
  requestId: string;
  db: Db;
  /** The process's job queue, bus, live events, open streams and execution pool. */
  services: Services;
  /** The verified key; null only on routes with `auth: false`. */
  key: VerifiedKey | null;
  /** Path parameters by the names in the template (`{id}` → `params.id`). */
  params: Record<string, string>;
  query: Query;
  /** The JSON body (POST, PATCH): `{}` when there is none. Errors are ApiErrors. */
  body(): Promise<Record<string, unknown>>;
}

export interface RawRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  template: string;
  /** The scope a key needs; routes with `auth: false` need no key (limited per address instead). */
  scope?: Scope;
  /** A second scope that also grants it. */
  alsoScope?: Scope;
  auth?: boolean;
  /**
   * How /v1/openapi.json documents the route: the operation without its error responses, which
   * come from the error catalogue like every route's (plus the codes it declares in `errors`).
   */
  openapi?: { operation: OperationObject; errors?: readonly DeclaredErrorCode[] };
  handle(ctx: RawContext): Promise<Answer>;
}

/**
 * A procedure by its path in the router (`agents.list`), split once into the caller's segments;
 * `longAnswers` when it may answer with an event stream or a wait (meta `eventStream`: execute).
 */
export interface ProcedureTarget {
  kind: 'procedure';
  path: string;
  segments: string[];
  longAnswers: boolean;
}

export interface RestRoute {
  method: string;
  template: string;
  pattern: RegExp;
  paramNames: string[];
  scope?: Scope;
  /** A second scope that also grants it. */
  alsoScope?: Scope;
  /** False: no key needed (the OpenAPI document). */
  auth: boolean;
  successStatus: number;
  target: ProcedureTarget | { kind: 'raw'; handle: RawRoute['handle'] };
}

export type RouteMatch =
  | { kind: 'found'; route: RestRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

function compile(template: string): { pattern: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const source = template
    .split('/')
    .map((seg) => {
      const param = /^\{(\w+)\}$/.exec(seg);
      if (!param) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      paramNames.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), paramNames };
}

export function buildRouteTable(router: AnyRouter, raw: RawRoute[] = []): RestRoute[] {
  const routes: RestRoute[] = raw.map((r) => ({
    method: r.method,
    template: r.template,
    ...compile(r.template),
    scope: r.scope,
    auth: r.auth !== false,
    successStatus: 200,
    target: { kind: 'raw', handle: r.handle },
  }));
  for (const [path, procedure] of Object.entries(router._def.procedures)) {
    const meta = (procedure as { _def: { meta?: Meta } })._def.meta;
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    routes.push({
      method: meta.openapi.method,
      template: meta.openapi.path,
      ...compile(meta.openapi.path),
      scope: meta.scope,
      ...(meta.alsoScope ? { alsoScope: meta.alsoScope } : {}),
      auth: true,
      successStatus: meta.successStatus ?? 200,
      target: { kind: 'procedure', path, segments: path.split('.'), longAnswers: Boolean(meta.eventStream) },
    });
  }
  return routes;
}

export function matchRoute(routes: RestRoute[], method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.method === method) {
      const params: Record<string, string> = {};
      route.paramNames.forEach((name, i) => (params[name] = decodeURIComponentSafe(m[i + 1]!)));
      return { kind: 'found', route, params };
    }
    allow.push(route.method);
  }
  return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
