// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, DB_KIND, prepareDataDir, TEST_AUTH_SECRET } from './harness';
import { startProcess, stop, waitReady, type Proc } from './processes';
import { until } from './eventually';

// An unexpected error's log line never carries the request's input. A real server process (its
// stdout is the log) on a database where three checks make an agent's insert fail the ways
// PostgreSQL repeats input: a check violation (DETAIL "Failing row contains (…)"), a cast in a
// check (a data exception quoting the value in its message), and a JSON cast (CONTEXT "JSON data,
// line 1: …"). Each answers 500 internal_error, logged with its request id and no input text.

const CANARY = 'CANARY-7f3a';

describe('logs of unexpected errors', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-logs-'));
  let pg: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let server: Proc | undefined;
  let key = '';

  before(async () => {
    pg = DB_KIND === 'postgres' ? await createTestDatabase() : undefined;
    if (!pg) await prepareDataDir(tmp);
    const { openDatabase } = await import('../db/client');
    const { migrateDatabase } = await import('../db/migrate');
    const { createUser } = await import('../server/modules/auth/users');
    const { createKey } = await import('../server/modules/keys/service');
    const { SCOPES } = await import('../server/modules/vocabulary/scopes');
    const database = await openDatabase({ databaseUrl: pg?.url, dataDir: tmp, max: 2 });
    try {
      await migrateDatabase(database);
      const m = await createUser(database.db, { email: 'logs@example.test' });
      const actor = { kind: 'user' as const, userId: m.userId, role: 'owner' as const, workspaceId: m.workspaceId, environment: 'test' as const, scopes: [...SCOPES] };
      key = (await createKey(database.db, actor, { name: 'logs', scopes: [...SCOPES] })).key;
      await database.db.execute(sql`alter table agents add constraint t_no_canary check (description is null or position('CANARY' in description) = 0)`);
      await database.db.execute(sql`alter table agents add constraint t_numeric check (instructions is null or instructions not like 'CANARY%' or instructions::int > 0)`);
      await database.db.execute(sql`alter table agents add constraint t_json check (metadata->>'doc' is null or (metadata->>'doc')::jsonb is not null)`);
    } finally {
      await database.close();
    }
    const env: Record<string, string> = pg ? { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET } : { DATA_DIR: tmp };
    server = await startProcess({ ...env, LOG_LEVEL: 'error', RUN_WORKERS: 'false' });
    await waitReady(server);
  });

  after(async () => {
    await stop(server);
    await pg?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a database error caused by the input is a 500 whose log line has its request id and none of the input', async () => {
    const bodies = [
      { name: 'a', description: `${CANARY} in a failing row` },
      { name: 'b', instructions: `${CANARY} "quoted" in a cast` },
      { name: 'c', metadata: { doc: `{"x": "${CANARY} in JSON` } },
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const res = await fetch(`${server!.url}/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      assert.equal(res.status, 500, text);
      assert.ok(!text.includes(CANARY));
      ids.push(res.headers.get('x-request-id')!);
    }
    await until('every request’s log line', () => ids.every((id) => server!.output.includes(id)), { timeoutMs: 5_000 });
    const lines = server!.output.split('\n').filter((l) => l.startsWith('{'));
    for (const id of ids) {
      const line = lines.find((l) => l.includes(id));
      assert.ok(line, `no log line for ${id}:\n${server!.output}`);
      const entry = JSON.parse(line) as { level: number; err?: { cause?: { code?: string } } };
      assert.equal(entry.level, 50);
      assert.match(entry.err?.cause?.code ?? '', /^2[23]/, line);
    }
    assert.ok(!server!.output.includes(CANARY), `the log quotes the input:\n${server!.output}`);
  });
});
