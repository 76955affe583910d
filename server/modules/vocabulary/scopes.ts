import { z } from 'zod';

// The scope names, once. The zod enum, the defaults, the dashboard checkboxes and the docs
// are all derived from this table: the published scopes, in their order, with their
// defaults (docs/api.md, "Keys and scopes").
export const SCOPE_TABLE = [
  { scope: 'agents:read', isDefault: true, description: 'List and retrieve agents' },
  { scope: 'agents:write', isDefault: true, description: 'Create, update and delete agents' },
  { scope: 'agents:execute', isDefault: true, description: 'Execute agents and manage conversations' },
  { scope: 'keys:manage', isDefault: false, description: 'Create and revoke API keys' },
  { scope: 'webhooks:manage', isDefault: false, description: 'Create and manage webhook endpoints' },
  { scope: 'analytics:read', isDefault: true, description: 'Access usage analytics and metrics' },
  { scope: 'budgets:manage', isDefault: false, description: 'Create and manage budgets' },
  { scope: 'audit:read', isDefault: false, description: 'Read the audit log: who changed what in the workspace' },
  { scope: 'evals:manage', isDefault: false, description: 'Manage datasets, experiments and online scoring rules' },
] as const;

export type Scope = (typeof SCOPE_TABLE)[number]['scope'];
export const SCOPES = SCOPE_TABLE.map((s) => s.scope) as [Scope, ...Scope[]];
export const DEFAULT_SCOPES: Scope[] = SCOPE_TABLE.filter((s) => s.isDefault).map((s) => s.scope);
export const scopeSchema = z.enum(SCOPES);

export function isScope(value: string): value is Scope {
  return (SCOPES as string[]).includes(value);
}

/** Whether scopes held grant a procedure: its scope, or its second one (`alsoScope`). */
export function holdsScope(held: readonly string[], need: { scope?: string; alsoScope?: string }): boolean {
  return !need.scope || held.includes(need.scope) || (need.alsoScope !== undefined && held.includes(need.alsoScope));
}

/** The requested scopes the holder does not have (empty: no escalation). */
export function missingScopes(held: readonly string[], requested: readonly string[]): string[] {
  return requested.filter((s) => !held.includes(s));
}

/** Sorted in table order without duplicates, so equal sets read the same everywhere. */
export function normalizeScopes(scopes: readonly Scope[]): Scope[] {
  return SCOPES.filter((s) => scopes.includes(s));
}
