// The yardstick for `npm run bench`: a bare node:http + postgres.js server doing the same
// work as GET /v1/keys?limit=20 and GET /v1/agents?limit=20 — SHA-256 of the bearer token, key
// lookup by hash (with its workspace), the same list query, the same JSON envelope. No
// framework, no rate limiting.
import { createHash } from 'node:crypto';
import http from 'node:http';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL!, { max: 10, onnotice: () => {} });
const iso = (d: Date | null) => (d ? d.toISOString() : null);

type Row = Record<string, unknown> & { id: string };
type Key = { workspace_id: string; environment: string };

const listKeys = async (key: Key) =>
  (
    await sql<Row[]>`
      select id, name, prefix, environment, scopes, last_used_at, expires_at, created_at, created_by_user_id, created_by_key_id from api_keys
      where workspace_id = ${key.workspace_id} and environment = ${key.environment} and revoked_at is null
      order by id desc limit 21`
  ).map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    environment: r.environment,
    scopes: r.scopes,
    lastUsed: iso(r.last_used_at as Date | null),
    expiresAt: iso(r.expires_at as Date | null),
    createdAt: iso(r.created_at as Date),
    createdBy: r.created_by_user_id ? { type: 'user', id: r.created_by_user_id } : r.created_by_key_id ? { type: 'key', id: r.created_by_key_id } : null,
  }));

const listAgents = async (key: Key) =>
  (
    await sql<Row[]>`
      select id, name, description, model, instructions, tools, temperature, max_steps, timeout_seconds,
        max_total_tokens, approval_timeout_seconds, trace_content, output_schema, metadata, version, labels, environment, created_at, updated_at from agents
      where workspace_id = ${key.workspace_id} and environment = ${key.environment} and deleted_at is null
      order by id desc limit 21`
  ).map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    model: r.model,
    instructions: r.instructions,
    tools: r.tools,
    temperature: r.temperature,
    maxSteps: r.max_steps,
    timeoutSeconds: r.timeout_seconds,
    maxTotalTokens: r.max_total_tokens,
    approvalTimeoutSeconds: r.approval_timeout_seconds,
    traceContent: r.trace_content,
    outputSchema: r.output_schema,
    metadata: r.metadata,
    version: r.version,
    // A label following the latest version (null) shows it.
    labels: Object.fromEntries(Object.entries(r.labels as Record<string, number | null>).map(([label, v]) => [label, v ?? r.version])),
    environment: r.environment,
    createdAt: iso(r.created_at as Date),
    updatedAt: iso(r.updated_at as Date),
  }));

const LISTS: Record<string, (key: Key) => Promise<Array<{ id: string }>>> = { '/v1/keys': listKeys, '/v1/agents': listAgents };

const server = http.createServer(async (req, res) => {
  try {
    const list = LISTS[(req.url ?? '').split('?')[0]!];
    if (!list) {
      res.writeHead(404);
      res.end();
      return;
    }
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const hash = token ? createHash('sha256').update(token).digest('hex') : '';
    const [key] = await sql`
      select k.id, k.workspace_id, k.environment, k.scopes, k.expires_at, k.revoked_at, w.plan
      from api_keys k join workspaces w on w.id = k.workspace_id where k.hash = ${hash}`;
    if (!key || key.revoked_at || (key.expires_at && key.expires_at <= new Date())) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end('{"error":{"type":"authentication_error","code":"invalid_api_key"}}');
      return;
    }
    const rows = await list(key as unknown as Key);
    const data = rows.slice(0, 20);
    const hasMore = rows.length > 20;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ data, hasMore, ...(hasMore ? { nextCursor: data[data.length - 1]!.id } : {}) }));
  } catch {
    res.writeHead(500);
    res.end();
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => void sql.end().then(() => process.exit(0))));
