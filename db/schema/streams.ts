import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Open event streams (SSE) and `wait: true` requests, one row each, so a key, a dashboard
// session and a workspace hold at most so many across every process (server/platform/streams/guard.ts). UNLOGGED (migration 0006, by hand): a
// lease is not business data; each process renews its own and deletes them as streams close,
// and a process that died leaves leases that simply expire.
export const streamLeases = pgTable(
  'stream_leases',
  {
    id: text('id').primaryKey(),
    // `key:<keyId>` or `session:<sessionId>` for event streams, `wait:<keyId>` for `wait: true` requests.
    holder: text('holder').notNull(),
    workspaceId: text('workspace_id').notNull(),
    // The process that serves the stream (it renews the lease until the stream ends).
    process: text('process').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    index('stream_leases_holder_idx').on(t.holder),
    index('stream_leases_process_idx').on(t.process),
    index('stream_leases_workspace_idx').on(t.workspaceId),
  ],
);
