import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { agents } from '../../../db/schema';
import type { Actor } from '../actor';
import { emitAudited } from '../audit/record';
import { ApiError, notFound } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { agentView, type AgentView } from './service';
import { LABEL_PATTERN, MAX_LABELS } from './version-schemas';

// An agent's labels (docs/versions.md, "Labels"): names pointing at versions. `production`
// exists on every agent and is what runs by default; it follows the latest version until it is
// moved by hand, and `"latest"` makes any label follow again. A move is one statement under the
// agent's row lock, with its audit record and its `agent.label_moved` event: every process starts
// its next execution on it (executions read the labels with the agent: nothing is cached).

export const PRODUCTION = 'production';

const badLabel = (label: string) =>
  new ApiError('invalid_parameter', `'${label.slice(0, 60)}' is not a label: use 1–40 lower-case letters, digits or '-'`, { param: 'label' });

/** The agent's row, locked until the transaction ends (null: not the caller's, or deleted). */
async function lockAgent(tx: Db, actor: Actor, id: string) {
  if (!isId('agt', id)) return null;
  const [row] = await tx
    .select()
    .from(agents)
    .where(and(eq(agents.id, id), eq(agents.workspaceId, actor.workspaceId), eq(agents.environment, actor.environment), isNull(agents.deletedAt)))
    .for('update');
  return row ?? null;
}

/** Points `label` at `version` (a number, or `"latest"`: following the latest); creates the label when new. */
export async function moveLabel(db: Db, actor: Actor, id: string, label: string, version: number | 'latest', whole: boolean): Promise<AgentView> {
  if (!LABEL_PATTERN.test(label)) throw badLabel(label);
  return db.transaction(async (tx) => {
    const row = await lockAgent(tx, actor, id);
    if (!row) throw notFound('agent', id);
    if (version !== 'latest' && version > row.version) {
      throw new ApiError('invalid_parameter', `The agent has no version ${version} (its latest is ${row.version})`, { param: 'version' });
    }
    const exists = Object.hasOwn(row.labels, label);
    if (!exists && Object.keys(row.labels).length >= MAX_LABELS) {
      throw new ApiError('invalid_parameter', `An agent has at most ${MAX_LABELS} labels; remove one first`, { param: 'label' });
    }
    const before = exists ? (row.labels[label] ?? 'latest') : null;
    const to = version === 'latest' ? null : version;
    const labels = { ...row.labels, [label]: to };
    const [moved] = await tx.update(agents).set({ labels }).where(eq(agents.id, row.id)).returning();
    const view = agentView(moved!, false);
    const change = { label, from: before === null ? null : before === 'latest' ? row.version : before, to: to ?? moved!.version, followsLatest: to === null };
    await emitAudited(tx, actor, 'agent.label_moved', { ...view, labelMoved: change }, actor, {
      action: 'agent.label_moved',
      target: { type: 'agent', id: row.id },
      changes: { [`labels.${label}`]: [before, version] },
    });
    return agentView(moved!, whole);
  });
}

/** Removes a label (never `production`: 400); an unknown one is 404. */
export async function removeLabel(db: Db, actor: Actor, id: string, label: string, whole: boolean): Promise<AgentView> {
  if (!LABEL_PATTERN.test(label)) throw badLabel(label);
  if (label === PRODUCTION) throw new ApiError('invalid_parameter', "The 'production' label cannot be removed: move it instead", { param: 'label' });
  return db.transaction(async (tx) => {
    const row = await lockAgent(tx, actor, id);
    if (!row) throw notFound('agent', id);
    if (!Object.hasOwn(row.labels, label)) throw new ApiError('resource_not_found', `The agent has no label '${label}'`, { param: 'label' });
    const before = row.labels[label] ?? 'latest';
    const { [label]: _gone, ...labels } = row.labels;
    const [moved] = await tx.update(agents).set({ labels }).where(eq(agents.id, row.id)).returning();
    const view = agentView(moved!, false);
    await emitAudited(tx, actor, 'agent.label_moved', { ...view, labelMoved: { label, from: before === 'latest' ? row.version : before, to: null, followsLatest: false } }, actor, {
      action: 'agent.label_removed',
      target: { type: 'agent', id: row.id },
      changes: { [`labels.${label}`]: [before, null] },
    });
    return agentView(moved!, whole);
  });
}
