// The yardstick for `npm run bench`: a bare node:http + postgres.js server doing the same
// work as GET /v1/keys?limit=20 — SHA-256 of the bearer token, key lookup by hash (with its
// workspace), the same list query, the same JSON envelope. No framework, no rate limiting.
import { createHash } from 'node:crypto';
import http from 'node:http';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL!, { max: 10, onnotice: () => {} });
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const server = http.createServer(async (req, res) => {
  try {
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
    const rows = await sql`
      select id, name, prefix, environment, scopes, last_used_at, expires_at, created_at from api_keys
      where workspace_id = ${key.workspace_id} and environment = ${key.environment} and revoked_at is null
      order by id desc limit 21`;
    const data = rows.slice(0, 20).map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      environment: r.environment,
      scopes: r.scopes,
      lastUsed: iso(r.last_used_at),
      expiresAt: iso(r.expires_at),
      createdAt: iso(r.created_at),
    }));
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
