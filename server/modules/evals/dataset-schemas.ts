import { z } from 'zod';
import { ENVIRONMENTS } from '../../../db/schema/values';
import { metadataSchema } from '../../platform/metadata';
import { pageEnvelopeSchema, pageQuerySchema } from '../../platform/pagination';

// Request and response shapes of /v1/datasets (docs/evals.md, "Datasets"). zod checks shapes and
// bounds; datasets.ts checks what it cannot (the size and depth of an object `expected`, the
// execution an item is made from, the 10,000 items).

/** Datasets one workspace may have per environment, and items one dataset may hold. */
export const MAX_DATASETS = 100;
export const MAX_ITEMS = 10_000;
/** An object `expected`: its size as JSON. */
export const EXPECTED_LIMITS = { bytes: 64 * 1024 } as const;

const DATASET_ID = 'dst_01JD8X41B2C3D4E5F6G7H8J9K0';
const ITEM_ID = 'dsi_01JD8X41B2C3D4E5F6G7H8J9K1';
const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T20:31:07.123Z' });

const name = z.string().trim().min(1).max(100).meta({ description: 'Shown in the dashboard and on experiments (1–100 characters).', example: 'Order questions' });
const description = z.string().trim().max(1000).meta({ description: 'What the dataset is for (at most 1,000 characters).', example: 'Questions customers ask about their orders, with the answers we expect.' });

export const createDatasetInput = z.strictObject({ name, description: description.optional() }).meta({ id: 'CreateDatasetRequest' });

const datasetId = z.string().meta({ description: 'The id of the dataset (`dst_…`).', example: DATASET_ID });
export const datasetIdInput = z.strictObject({ id: datasetId });

export const updateDatasetInput = z
  .strictObject({ id: datasetId, name: name.optional(), description: description.nullable().optional() })
  .meta({ description: 'The fields to change; the others keep their value. `description: null` removes it.' });

export const listDatasetsInput = z.strictObject({ ...pageQuerySchema });

export const datasetSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier (`dst_…`).', example: DATASET_ID }),
    name: z.string().meta({ example: 'Order questions' }),
    description: z.string().nullable().meta({ example: 'Questions customers ask about their orders, with the answers we expect.' }),
    itemCount: z.int().meta({ description: `Items it holds (at most ${MAX_ITEMS.toLocaleString('en-US')}).`, example: 120 }),
    environment: z.enum(ENVIRONMENTS).meta({ example: 'test' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Dataset' });

export const datasetListSchema = pageEnvelopeSchema(datasetSchema).meta({ id: 'DatasetList' });

export const deletedDatasetSchema = z
  .object({ id: z.string().meta({ example: DATASET_ID }), deleted: z.literal(true).meta({ description: 'Always `true`.', example: true }) })
  .meta({ id: 'DeletedDataset' });

// ---- items ----

const itemInput = z.string().min(1).max(100_000).meta({ description: 'The user message the agent runs on (1–100,000 characters), as `input` of an execute.', example: 'Where is order 1042?' });
export const expectedSchema = z
  .union([z.string().max(100_000), z.record(z.string(), z.unknown()), z.array(z.unknown())])
  .meta({
    description:
      'A good answer: a text (compared with the output, trimmed) or a JSON object or list (compared with the structured output as canonical JSON); at most 64 KB as JSON (a request body nests at most 32 levels). Scorers that need it score `null` without it.',
    example: 'Order 1042 shipped on 2026-11-20.',
  });

const itemFields = { expected: expectedSchema.nullable().optional(), metadata: metadataSchema.optional() };

export const createItemInput = z
  .strictObject({
    id: datasetId,
    input: itemInput.optional(),
    fromExecution: z
      .string()
      .max(100)
      .optional()
      .meta({ description: 'Instead of `input`: an ended execution of this environment (`exe_…`). Its input becomes the item’s, and its output (its structured output when it has one) its `expected` unless one is given.', example: 'exe_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }),
    ...itemFields,
  })
  .superRefine((v, ctx) => {
    if ((v.input === undefined) === (v.fromExecution === undefined)) {
      ctx.addIssue({ code: 'custom', path: [v.input === undefined ? 'input' : 'fromExecution'], message: 'give either `input` or `fromExecution`, not both' });
    }
  })
  .meta({ description: 'Either `input` (and `expected`) by hand, or `fromExecution`.' });

const itemId = z.string().meta({ description: 'The id of the item (`dsi_…`).', example: ITEM_ID });
export const itemIdInput = z.strictObject({ id: datasetId, itemId });

export const updateItemInput = z
  .strictObject({ id: datasetId, itemId, input: itemInput.optional(), expected: expectedSchema.nullable().optional(), metadata: metadataSchema.optional() })
  .meta({ description: 'The fields to change; the others keep their value. `expected: null` removes it. Experiments already started keep the item as it was.' });

export const listItemsInput = z.strictObject({ id: datasetId, ...pageQuerySchema });

export const datasetItemSchema = z
  .object({
    id: z.string().meta({ description: 'Unique identifier (`dsi_…`).', example: ITEM_ID }),
    datasetId: z.string().meta({ example: DATASET_ID }),
    input: z.string().meta({ example: 'Where is order 1042?' }),
    expected: z.unknown().nullable().meta({ description: 'A text, a JSON object or list, or `null`.', example: 'Order 1042 shipped on 2026-11-20.' }),
    metadata: z.object({}).catchall(z.string()).meta({ description: 'Your own key-value pairs.', example: {} }),
    sourceExecutionId: z.string().nullable().meta({ description: 'The execution it was made from, if any.', example: null }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'DatasetItem' });

export const datasetItemListSchema = pageEnvelopeSchema(datasetItemSchema).meta({ id: 'DatasetItemList' });

export const deletedItemSchema = z
  .object({ id: z.string().meta({ example: ITEM_ID }), deleted: z.literal(true).meta({ description: 'Always `true`.', example: true }) })
  .meta({ id: 'DeletedDatasetItem' });
