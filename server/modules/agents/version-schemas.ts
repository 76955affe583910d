import { z } from 'zod';
import { limitSchema } from '../../platform/pagination';
import { agentSchema } from './schemas';

// Request and response shapes of an agent's versions and labels (docs/versions.md).

const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-29T10:31:07.123Z' });

/** A label's name: lower-case letters, digits and `-`, 1–40 characters. */
export const LABEL_PATTERN = /^[a-z0-9-]{1,40}$/;
/** The most labels an agent may have (`production` included). */
export const MAX_LABELS = 20;

export const agentConfigSchema = agentSchema
  .pick({ model: true, instructions: true, tools: true, temperature: true, maxSteps: true, timeoutSeconds: true, maxTotalTokens: true, approvalTimeoutSeconds: true, traceContent: true, outputSchema: true })
  .meta({ id: 'AgentConfig', description: 'The agent’s behaviour in this version (tool URLs shown as the agent’s are; MCP header values never).' });

const authorSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('user'), id: z.string(), email: z.string().nullable() }),
    z.object({ type: z.literal('key'), id: z.string(), prefix: z.string().nullable() }),
    z.object({ type: z.literal('system') }),
  ])
  .meta({ id: 'VersionAuthor', description: 'Who made the version: a signed-in user, an API key, or the service (the first version of an agent made before versions began).' });

export const agentVersionSchema = z
  .object({
    agentId: z.string().meta({ example: 'agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK' }),
    version: z.number().int().meta({ description: 'The version number: 1 when the agent was created, one more at each change of its behaviour.', example: 3 }),
    createdAt: timestamp,
    createdBy: authorSchema,
    note: z.string().nullable().meta({ description: 'What the change was for (`versionNote` of the create or update).', example: 'Shorter answers' }),
    digest: z.string().meta({ description: 'sha256 (hex) of the canonical JSON (keys sorted) of `config`: equal behaviour shown, equal digest.', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }),
    config: agentConfigSchema,
  })
  .meta({ id: 'AgentVersion' });

export const agentVersionListSchema = z
  .object({
    data: z.array(agentVersionSchema),
    hasMore: z.boolean().meta({ description: 'Older versions exist.' }),
    nextCursor: z.string().optional().meta({ description: 'The last version’s number, when older ones exist: pass it as after.' }),
    prevCursor: z.string().optional().meta({ description: 'The first version’s number, when newer ones exist: pass it as before.' }),
  })
  .meta({ id: 'AgentVersionList' });

export const listVersionsInput = z.strictObject({
  id: z.string().meta({ description: 'The agent (`agt_…`).' }),
  limit: limitSchema(100, { description: 'How many versions to return, 1–100. Default: 20.', default: 20, example: 20 }).optional(),
  after: z.string().meta({ description: 'A version number: return the versions older than it (the `nextCursor` of the previous page).' }).optional(),
  before: z.string().meta({ description: 'A version number: return the versions just newer than it.' }).optional(),
});

export const getVersionInput = z.strictObject({
  id: z.string().meta({ description: 'The agent (`agt_…`).' }),
  version: z.coerce.number().int().min(1).max(1_000_000_000).meta({ description: 'The version number.', example: 1 }),
});

export const labelInput = z.strictObject({
  id: z.string().meta({ description: 'The agent (`agt_…`).' }),
  label: z.string().meta({ description: 'The label: lower-case letters, digits and `-`, 1–40 characters.', example: 'staging' }),
});

export const moveLabelInput = labelInput.extend({
  version: z
    .union([z.number().int().min(1), z.literal('latest')])
    .meta({ description: 'The version the label points at, or `"latest"`: it follows the latest version from now on (as `production` does until moved).', example: 3 }),
});

export type AgentConfigView = z.infer<typeof agentConfigSchema>;
export type AgentVersionView = z.infer<typeof agentVersionSchema>;
