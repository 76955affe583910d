// One process-wide home for stateful things (database, PGlite, limiter, caches).
// Next evaluates our modules several times per process (custom server, route-handler chunks,
// page chunks): a module-level `let` would exist once per copy. globalThis exists once.
const KEY = Symbol.for('agent-service.singletons');

type Registry = Map<string, unknown>;

function registry(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry | undefined>;
  let r = g[KEY];
  if (!r) {
    r = new Map();
    g[KEY] = r;
  }
  return r;
}

/** The process-wide value for `name`, created by `create` the first time. */
export function singleton<T>(name: string, create: () => T): T {
  const r = registry();
  if (!r.has(name)) r.set(name, create());
  return r.get(name) as T;
}

export function peekSingleton<T>(name: string): T | undefined {
  return registry().get(name) as T | undefined;
}

export function setSingleton<T>(name: string, value: T): void {
  registry().set(name, value);
}

export function dropSingleton(name: string): void {
  registry().delete(name);
}
