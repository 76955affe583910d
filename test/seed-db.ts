import type { Db } from '../db/client';
import { agents, workspaces } from '../db/schema';
import { newId } from '../server/platform/ids';

// Rows written straight into a bare test database (harness.ts, bareTestDatabase) for tests that
// call a module directly: a workspace (starter plan) and one agent of its live environment.

export interface SeededTenant {
  workspaceId: string;
  environment: 'live';
  agentId: string;
}

export async function seedTenant(db: Db, name = 'Seeded'): Promise<SeededTenant> {
  const workspaceId = newId('ws');
  const agentId = newId('agt');
  await db.insert(workspaces).values({ id: workspaceId, name });
  await db.insert(agents).values({ id: agentId, workspaceId, environment: 'live', name: 'agent', model: 'openai-compatible/fake-1', maxSteps: 5, timeoutSeconds: 60, toolSecret: 'unused' });
  return { workspaceId, environment: 'live', agentId };
}
