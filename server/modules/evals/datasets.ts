import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import { datasetItems, datasets, executions } from '../../../db/schema';
import { transaction } from '../../../db/transaction';
import type { Actor } from '../actor';
import { audit, changesOf } from '../audit/record';
import { assertNoProtoKey } from '../vocabulary/output-schema';
import { ApiError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { keysetList } from '../../platform/keyset';
import type { Page, PageParams } from '../../platform/pagination';
import { assertUnderLimit } from '../../platform/resource-limit';
import {
  EXPECTED_LIMITS,
  MAX_DATASETS,
  MAX_ITEMS,
  type createDatasetInput,
  type createItemInput,
  type datasetItemSchema,
  type datasetSchema,
  type updateDatasetInput,
  type updateItemInput,
} from './dataset-schemas';

// Datasets and their items (docs/evals.md, "Datasets"), in the caller's workspace and environment.
// A dataset holds at most 10,000 items: its row keeps the count, changed under the row's lock by
// every insert and delete, so two concurrent adds cannot pass the limit together.

export type DatasetView = z.infer<typeof datasetSchema>;
export type DatasetItemView = z.infer<typeof datasetItemSchema>;
type Owner = Pick<Actor, 'workspaceId' | 'environment'>;
type DatasetRow = typeof datasets.$inferSelect;
type ItemRow = typeof datasetItems.$inferSelect;

export const datasetView = (row: DatasetRow): DatasetView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  itemCount: row.itemCount,
  environment: row.environment,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const itemView = (row: ItemRow): DatasetItemView => ({
  id: row.id,
  datasetId: row.datasetId,
  input: row.input,
  expected: row.expected ?? null,
  metadata: row.metadata,
  sourceExecutionId: row.sourceExecutionId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const datasetList = keysetList({ name: 'datasets', prefix: 'dst', table: datasets, columns: getTableColumns(datasets) });
const itemList = keysetList({ name: 'dataset_items', prefix: 'dsi', table: datasetItems, columns: getTableColumns(datasetItems), filters: { datasetId: datasetItems.datasetId } });

const ownedDataset = (owner: Owner, id: string) => and(eq(datasets.id, id), eq(datasets.workspaceId, owner.workspaceId), eq(datasets.environment, owner.environment));

/** What zod cannot see in the raw input: `__proto__` anywhere in `expected`, and its size (its depth is the request body's: ≤ 32). */
export function assertSafeExpected(raw: unknown): void {
  if (raw === null || typeof raw !== 'object' || !('expected' in raw)) return;
  const expected = (raw as { expected: unknown }).expected;
  if (expected === null || typeof expected !== 'object') return;
  assertNoProtoKey(expected, 'expected');
  const bytes = Buffer.byteLength(JSON.stringify(expected));
  if (bytes > EXPECTED_LIMITS.bytes) throw new ApiError('invalid_parameter', `'expected' must be at most 64 KB as JSON (it is ${bytes} bytes)`, { param: 'expected' });
}

/** The dataset, row-locked until the transaction ends when `lock` (adds and deletes of items). */
async function findDataset(db: Db, owner: Owner, id: string, lock = false): Promise<DatasetRow> {
  if (!isId('dst', id)) throw notFound('dataset', id);
  const q = db.select().from(datasets).where(ownedDataset(owner, id));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('dataset', id);
  return row;
}

export async function createDataset(db: Db, actor: Actor, input: z.infer<typeof createDatasetInput>): Promise<DatasetView> {
  return transaction(db, async (tx) => {
    await assertUnderLimit(tx, datasets, actor, { name: 'datasets', max: MAX_DATASETS, code: 'dataset_limit_reached' });
    const [row] = await tx
      .insert(datasets)
      .values({ id: newId('dst'), workspaceId: actor.workspaceId, environment: actor.environment, name: input.name, description: input.description || null })
      .returning();
    const view = datasetView(row!);
    await audit(tx, actor, { action: 'dataset.created', target: { type: 'dataset', id: view.id }, changes: changesOf(null, view, ['name', 'description']) });
    return view;
  });
}

export async function listDatasets(db: Db, owner: Owner, params: PageParams): Promise<Page<DatasetView>> {
  const page = await datasetList.page(db, owner, params);
  return { ...page, data: (page.data as DatasetRow[]).map(datasetView) };
}

export const getDataset = async (db: Db, owner: Owner, id: string): Promise<DatasetView> => datasetView(await findDataset(db, owner, id));

export async function updateDataset(db: Db, actor: Actor, id: string, input: Omit<z.infer<typeof updateDatasetInput>, 'id'>): Promise<DatasetView> {
  if (input.name === undefined && input.description === undefined) return getDataset(db, actor, id);
  return transaction(db, async (tx) => {
    const before = await findDataset(tx, actor, id, true);
    const [row] = await tx
      .update(datasets)
      .set({ ...(input.name !== undefined ? { name: input.name } : {}), ...(input.description !== undefined ? { description: input.description || null } : {}), updatedAt: sql`now()` })
      .where(ownedDataset(actor, id))
      .returning();
    const view = datasetView(row!);
    await audit(tx, actor, { action: 'dataset.updated', target: { type: 'dataset', id }, changes: changesOf(datasetView(before), view, ['name', 'description']) });
    return view;
  });
}

/** Deletes the dataset and its items; experiments made from it keep their copies of the items. */
export async function deleteDataset(db: Db, actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
  if (!isId('dst', id)) throw notFound('dataset', id);
  return transaction(db, async (tx) => {
    const [row] = await tx.delete(datasets).where(ownedDataset(actor, id)).returning({ name: datasets.name });
    if (!row) throw notFound('dataset', id);
    await audit(tx, actor, { action: 'dataset.deleted', target: { type: 'dataset', id }, changes: { name: [row.name, null] } });
    return { id, deleted: true as const };
  });
}

// ---- items ----

/** The input and output of an execution of the owner's, for an item made from it. */
async function fromExecution(db: Db, owner: Owner, id: string): Promise<{ input: string; expected: unknown }> {
  const missing = new ApiError('resource_not_found', `No such execution: '${id.slice(0, 64)}'`, { param: 'fromExecution' });
  if (!isId('exe', id)) throw missing;
  const [row] = await db
    .select({ input: executions.input, output: executions.output, outputJson: executions.outputJson, status: executions.status })
    .from(executions)
    .where(and(eq(executions.id, id), eq(executions.workspaceId, owner.workspaceId), eq(executions.environment, owner.environment)));
  if (!row) throw missing;
  if (row.status === 'queued' || row.status === 'running' || row.status === 'requires_action') {
    throw new ApiError('execution_not_final', `The execution has not ended yet (status '${row.status}'); add it once it has an answer`, { param: 'fromExecution' });
  }
  return { input: row.input, expected: row.outputJson ?? row.output ?? null };
}

export async function createItem(db: Db, owner: Owner, input: z.infer<typeof createItemInput>): Promise<DatasetItemView> {
  const source = input.fromExecution !== undefined ? { id: input.fromExecution, ...(await fromExecution(db, owner, input.fromExecution)) } : null;
  return transaction(db, async (tx) => {
    const dataset = await findDataset(tx, owner, input.id, true);
    if (dataset.itemCount >= MAX_ITEMS) {
      throw new ApiError('dataset_full', `This dataset already holds ${MAX_ITEMS.toLocaleString('en-US')} items, the most a dataset may hold; delete some or make another dataset`);
    }
    const [row] = await tx
      .insert(datasetItems)
      .values({
        id: newId('dsi'),
        datasetId: dataset.id,
        workspaceId: owner.workspaceId,
        environment: owner.environment,
        input: source ? source.input : input.input!,
        expected: input.expected !== undefined ? input.expected : (source?.expected ?? null),
        metadata: input.metadata ?? {},
        sourceExecutionId: source?.id ?? null,
      })
      .returning();
    await tx.update(datasets).set({ itemCount: sql`${datasets.itemCount} + 1`, updatedAt: sql`now()` }).where(eq(datasets.id, dataset.id));
    return itemView(row!);
  });
}

export async function listItems(db: Db, owner: Owner, datasetId: string, params: PageParams): Promise<Page<DatasetItemView>> {
  await findDataset(db, owner, datasetId);
  const page = await itemList.page(db, owner, { ...params, datasetId });
  return { ...page, data: (page.data as ItemRow[]).map(itemView) };
}

const ownedItem = (owner: Owner, datasetId: string, itemId: string) =>
  and(eq(datasetItems.id, itemId), eq(datasetItems.datasetId, datasetId), eq(datasetItems.workspaceId, owner.workspaceId), eq(datasetItems.environment, owner.environment));

export async function getItem(db: Db, owner: Owner, datasetId: string, itemId: string): Promise<DatasetItemView> {
  await findDataset(db, owner, datasetId);
  if (!isId('dsi', itemId)) throw notFound('dataset item', itemId);
  const [row] = await db.select().from(datasetItems).where(ownedItem(owner, datasetId, itemId));
  if (!row) throw notFound('dataset item', itemId);
  return itemView(row);
}

export async function updateItem(db: Db, owner: Owner, input: z.infer<typeof updateItemInput>): Promise<DatasetItemView> {
  const { id, itemId, ...fields } = input;
  if (Object.values(fields).every((v) => v === undefined)) return getItem(db, owner, id, itemId);
  await findDataset(db, owner, id);
  if (!isId('dsi', itemId)) throw notFound('dataset item', itemId);
  const [row] = await db
    .update(datasetItems)
    .set({
      ...(fields.input !== undefined ? { input: fields.input } : {}),
      ...(fields.expected !== undefined ? { expected: fields.expected } : {}),
      ...(fields.metadata !== undefined ? { metadata: fields.metadata } : {}),
      updatedAt: sql`now()`,
    })
    .where(ownedItem(owner, id, itemId))
    .returning();
  if (!row) throw notFound('dataset item', itemId);
  return itemView(row);
}

export async function deleteItem(db: Db, owner: Owner, datasetId: string, itemId: string): Promise<{ id: string; deleted: true }> {
  if (!isId('dsi', itemId)) throw notFound('dataset item', itemId);
  return transaction(db, async (tx) => {
    await findDataset(tx, owner, datasetId, true);
    const [row] = await tx.delete(datasetItems).where(ownedItem(owner, datasetId, itemId)).returning({ id: datasetItems.id });
    if (!row) throw notFound('dataset item', itemId);
    await tx.update(datasets).set({ itemCount: sql`${datasets.itemCount} - 1`, updatedAt: sql`now()` }).where(eq(datasets.id, datasetId));
    return { id: itemId, deleted: true as const };
  });
}
