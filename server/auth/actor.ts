import type { Environment, Plan } from '../../db/schema';
import type { Scope } from '../keys/scopes';

// Who is calling, whichever face they came through. Procedures and services see only this.
export type Actor =
  | {
      kind: 'key';
      keyId: string;
      workspaceId: string;
      environment: Environment;
      scopes: Scope[];
      plan: Plan;
      customRpm: number | null;
    }
  | {
      // A signed-in human in the dashboard: every scope, in the environment chosen in the header.
      kind: 'user';
      userId: string;
      /** The dashboard session making the call (sessions.ts); none for the admin CLI. */
      sessionId?: string;
      workspaceId: string;
      environment: Environment;
      scopes: Scope[];
    };
