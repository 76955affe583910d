// Mastra's own server for `BENCH_PARTS=peers npm run bench` (scripts/bench/peers.ts), in a process
// of its own: one agent on the hosted-pace fake model, served by Mastra's Hono adapter
// (@mastra/hono's MastraServer, the routes of `mastra build`'s server: POST
// /api/agents/:agentId/generate and /api/agents/:agentId/stream) on @hono/node-server.
// Two agents, the same but for their model (@ai-sdk/openai-compatible): `hosted` on MODEL_URL, the
// fake that streams at a hosted pace (what `agent.stream()` asks for), and `hosted-whole` on
// MODEL_WHOLE_URL, the same fake answering a non-streamed request whole after the same time (what
// `agent.generate()` asks for: it calls the model without streaming). Memory: @mastra/memory on
// Mastra's LibSQLStore (SQLite through libsql), in a file (MASTRA_DB_URL, e.g. file:/tmp/…/mastra.db)
// or `:memory:`; or, with MASTRA_PG_URL, on @mastra/pg's PostgresStore (its default pool) on that
// PostgreSQL database. No logger, no telemetry, no observability: the bare request path.
// Plain JavaScript run by node itself (no tsx), with its own node_modules (scripts/bench/peers).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { serve } from '@hono/node-server';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { MastraServer } from '@mastra/hono';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { PostgresStore } from '@mastra/pg';
import { Hono } from 'hono';

const storage = process.env.MASTRA_PG_URL
  ? new PostgresStore({ id: 'bench-storage', connectionString: process.env.MASTRA_PG_URL })
  : new LibSQLStore({ id: 'bench-storage', url: process.env.MASTRA_DB_URL ?? ':memory:' });
const agent = (id, baseURL) =>
  new Agent({
    id,
    name: 'Hosted pace',
    instructions: 'Answer briefly.',
    model: createOpenAICompatible({ name: 'hosted', baseURL, apiKey: 'bench' }).chatModel('hosted'),
    memory: new Memory(),
  });
const agents = { hosted: agent('hosted', process.env.MODEL_URL), 'hosted-whole': agent('hosted-whole', process.env.MODEL_WHOLE_URL) };
const mastra = new Mastra({ agents, storage, logger: false });

const app = new Hono();
const server = new MastraServer({ app, mastra });
await server.init();
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }, () => process.send?.({ type: 'ready' }));
process.on('SIGTERM', () => process.exit(0));
