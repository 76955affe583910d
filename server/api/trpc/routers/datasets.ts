import {
  createDatasetInput,
  createItemInput,
  datasetIdInput,
  datasetItemListSchema,
  datasetItemSchema,
  datasetListSchema,
  datasetSchema,
  deletedDatasetSchema,
  deletedItemSchema,
  itemIdInput,
  listDatasetsInput,
  listItemsInput,
  updateDatasetInput,
  updateItemInput,
} from '../../../modules/evals/dataset-schemas';
import { assertSafeExpected, createDataset, createItem, deleteDataset, deleteItem, getDataset, getItem, listDatasets, listItems, updateDataset, updateItem } from '../../../modules/evals/datasets';
import { assertSafeKeys } from '../../../platform/metadata';
import { PAGE_ERRORS } from '../../../platform/pagination';
import { apiProcedure, router } from '../init';

// /v1/datasets (docs/evals.md, "Datasets"): what experiments run an agent on. Writes need
// `evals:manage` (not a default scope); reads take it or `agents:read`.

const tags = ['Evals'];
const WRITE = { scope: 'evals:manage' } as const;
const READ = { scope: 'evals:manage', alsoScope: 'agents:read' } as const;

/** Checks on the raw input that zod cannot make, before it parses (a `__proto__` key is gone after). */
const safeInput = apiProcedure.use(async ({ getRawInput, next }) => {
  const raw = await getRawInput().catch(() => undefined);
  assertSafeKeys(raw, 'metadata');
  assertSafeExpected(raw);
  return next();
});

export const datasetsRouter = router({
  create: apiProcedure
    .meta({
      ...WRITE,
      successStatus: 201,
      errors: ['dataset_limit_reached'],
      openapi: { method: 'POST', path: '/v1/datasets', tags, summary: 'Create a dataset', description: 'Scope `evals:manage`. At most 100 datasets per workspace and environment.', successDescription: 'The new dataset' },
    })
    .input(createDatasetInput)
    .output(datasetSchema)
    .mutation(({ ctx, input }) => createDataset(ctx.db, ctx.actor, input)),

  list: apiProcedure
    .meta({ ...READ, errors: PAGE_ERRORS, openapi: { method: 'GET', path: '/v1/datasets', tags, summary: 'List datasets', description: 'Scope `evals:manage` or `agents:read`.', successDescription: 'Datasets of this workspace and environment, newest first' } })
    .input(listDatasetsInput)
    .output(datasetListSchema)
    .query(({ ctx, input }) => listDatasets(ctx.db, ctx.actor, input)),

  get: apiProcedure
    .meta({ ...READ, errors: ['resource_not_found'], openapi: { method: 'GET', path: '/v1/datasets/{id}', tags, summary: 'Retrieve a dataset', description: 'Scope `evals:manage` or `agents:read`.', successDescription: 'The dataset' } })
    .input(datasetIdInput)
    .output(datasetSchema)
    .query(({ ctx, input }) => getDataset(ctx.db, ctx.actor, input.id)),

  update: apiProcedure
    .meta({ ...WRITE, errors: ['resource_not_found'], openapi: { method: 'PATCH', path: '/v1/datasets/{id}', tags, summary: 'Update a dataset', successDescription: 'The updated dataset' } })
    .input(updateDatasetInput)
    .output(datasetSchema)
    .mutation(({ ctx, input: { id, ...fields } }) => updateDataset(ctx.db, ctx.actor, id, fields)),

  delete: apiProcedure
    .meta({
      ...WRITE,
      errors: ['resource_not_found'],
      openapi: { method: 'DELETE', path: '/v1/datasets/{id}', tags, summary: 'Delete a dataset', description: 'Deletes it and its items. Experiments made from it keep the items as they were.', successDescription: 'The deleted dataset’s id' },
    })
    .input(datasetIdInput)
    .output(deletedDatasetSchema)
    .mutation(({ ctx, input }) => deleteDataset(ctx.db, ctx.actor, input.id)),

  createItem: safeInput
    .meta({
      ...WRITE,
      successStatus: 201,
      errors: ['resource_not_found', 'dataset_full', 'execution_not_final'],
      openapi: {
        method: 'POST',
        path: '/v1/datasets/{id}/items',
        tags,
        summary: 'Add an item to a dataset',
        description:
          'Scope `evals:manage`. `{input, expected?, metadata?}` by hand, or `{fromExecution}`: an ended execution’s input, and its output (structured output when it has one) as `expected` unless one is given. At most 10,000 items a dataset.',
        successDescription: 'The new item',
      },
    })
    .input(createItemInput)
    .output(datasetItemSchema)
    .mutation(({ ctx, input }) => createItem(ctx.db, ctx.actor, input)),

  items: apiProcedure
    .meta({ ...READ, errors: ['resource_not_found', ...PAGE_ERRORS], openapi: { method: 'GET', path: '/v1/datasets/{id}/items', tags, summary: 'List a dataset’s items', description: 'Scope `evals:manage` or `agents:read`.', successDescription: 'Its items, newest first' } })
    .input(listItemsInput)
    .output(datasetItemListSchema)
    .query(({ ctx, input: { id, ...page } }) => listItems(ctx.db, ctx.actor, id, page)),

  item: apiProcedure
    .meta({ ...READ, errors: ['resource_not_found'], openapi: { method: 'GET', path: '/v1/datasets/{id}/items/{itemId}', tags, summary: 'Retrieve a dataset item', description: 'Scope `evals:manage` or `agents:read`.', successDescription: 'The item' } })
    .input(itemIdInput)
    .output(datasetItemSchema)
    .query(({ ctx, input }) => getItem(ctx.db, ctx.actor, input.id, input.itemId)),

  updateItem: safeInput
    .meta({ ...WRITE, errors: ['resource_not_found'], openapi: { method: 'PATCH', path: '/v1/datasets/{id}/items/{itemId}', tags, summary: 'Update a dataset item', successDescription: 'The updated item' } })
    .input(updateItemInput)
    .output(datasetItemSchema)
    .mutation(({ ctx, input }) => updateItem(ctx.db, ctx.actor, input)),

  deleteItem: apiProcedure
    .meta({ ...WRITE, errors: ['resource_not_found'], openapi: { method: 'DELETE', path: '/v1/datasets/{id}/items/{itemId}', tags, summary: 'Delete a dataset item', successDescription: 'The deleted item’s id' } })
    .input(itemIdInput)
    .output(deletedItemSchema)
    .mutation(({ ctx, input }) => deleteItem(ctx.db, ctx.actor, input.id, input.itemId)),
});
