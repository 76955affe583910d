import type { AnyRouter } from '@trpc/server';
import type { Meta } from '../trpc/init';
import type { Scope } from '../keys/scopes';

// The REST route table, built once from the router's OpenAPI meta: which paths exist, which
// methods each allows (405 with `Allow`), the scope each needs, and the success status.

export interface RestRoute {
  method: string;
  template: string;
  pattern: RegExp;
  procedurePath: string;
  scope?: Scope;
  successStatus: number;
  /** Public routes need no key (the OpenAPI document). */
  public: boolean;
}

export type RouteMatch =
  | { kind: 'found'; route: RestRoute }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

function patternOf(template: string): RegExp {
  const source = template
    .split('/')
    .map((seg) => (/^\{\w+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

export function buildRouteTable(router: AnyRouter, extra: Omit<RestRoute, 'pattern'>[] = []): RestRoute[] {
  const routes: RestRoute[] = extra.map((r) => ({ ...r, pattern: patternOf(r.template) }));
  for (const [procedurePath, procedure] of Object.entries(router._def.procedures)) {
    const meta = (procedure as { _def: { meta?: Meta } })._def.meta;
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    routes.push({
      method: meta.openapi.method,
      template: meta.openapi.path,
      pattern: patternOf(meta.openapi.path),
      procedurePath,
      scope: meta.scope,
      successStatus: meta.successStatus ?? 200,
      public: meta.openapi.protect === false,
    });
  }
  return routes;
}

export function matchRoute(routes: RestRoute[], method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const route of routes) {
    if (!route.pattern.test(path)) continue;
    if (route.method === method) return { kind: 'found', route };
    allow.push(route.method);
  }
  return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
}
