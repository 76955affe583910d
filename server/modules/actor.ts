import type { TraceParent } from './vocabulary/trace-ids';
import type { Environment, Plan } from '../../db/schema';
import type { MemberRole } from '../../db/schema/values';
import type { Scope } from './vocabulary/scopes';

// Who is acting, whichever way they came in: an API key over REST, a signed-in human in the
// dashboard (or the admin CLI acting as one). Services scope everything they read and write by
// `workspaceId` + `environment` and check `scopes`; they never ask how the caller signed in.
export type Actor =
  | {
      kind: 'key';
      keyId: string;
      workspaceId: string;
      environment: Environment;
      scopes: Scope[];
      plan: Plan;
      customRpm: number | null;
      /** Where the request came from (the audit log's context); none outside a request. */
      request?: RequestContext;
    }
  | {
      // A signed-in human in the dashboard, in the workspace they chose and the environment chosen
      // in the header, with their role there (read on every request: docs/teams.md).
      kind: 'user';
      userId: string;
      role: MemberRole;
      /** The dashboard session making the call (modules/auth/sessions.ts); none for the admin CLI. */
      sessionId?: string;
      workspaceId: string;
      environment: Environment;
      scopes: Scope[];
      /** Where the request came from (the audit log's context); the admin CLI names itself. */
      request?: RequestContext;
    };

/** A signed-in human (the dashboard, or the admin CLI acting as one). */
export type UserActor = Extract<Actor, { kind: 'user' }>;

/** Where a change was asked from, as the audit log records it (docs/audit.md). */
export interface RequestContext {
  /** The client's address as the edge determined it (trusted proxies only: platform/http/client-address.ts). */
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** The caller's trace (a W3C `traceparent` header): runs it starts join it (docs/traces.md). */
  trace?: TraceParent | null;
}
