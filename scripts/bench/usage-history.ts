// A child of `npm run bench`'s usage part (scripts/bench/usage.ts): on the database of its
// environment (DATABASE_URL, or the PGlite data dir DATA_DIR), makes a workspace with a live key,
// writes USAGE_HISTORY (1,000,000) executions' usage records spread over the last 366 days the
// way finish writes them, and compacts them into rollups, timed. Prints one JSON line:
// `{key, insertMs, compactMs, compactCpuMs, rollupRows}`. CPU: this process (on PGlite, the
// database too) plus, on PostgreSQL, its one backend (a pool of one connection).
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../db/client';
import { migrateDatabase } from '../../db/migrate';
import { env } from '../../server/platform/env.js';
import { cpuMs } from './cpu';
import { createUser, setWorkspacePlan } from '../../server/modules/auth/users';
import { SCOPES } from '../../server/modules/vocabulary/scopes';
import { createKey } from '../../server/modules/keys/service';
import { compactAll } from '../../server/modules/usage/compactor';
import { queryRows } from '../../db/rows';

const N = Number(process.env.USAGE_HISTORY ?? 1_000_000);
const AGENTS = 10;

async function main() {
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, max: 1 });
  await migrateDatabase(database);
  const { db } = database;
  try {
    const m = await createUser(db, { email: `usage-bench-${Date.now()}@example.com` });
    await setWorkspacePlan(db, m.workspaceId, 'enterprise', 100_000_000, null);
    const actor = { kind: 'user' as const, userId: m.userId, role: 'owner' as const, workspaceId: m.workspaceId, environment: 'live' as const, scopes: [...SCOPES] };
    const { key } = await createKey(db, actor, { name: 'usage bench', environment: 'live', scopes: [...SCOPES] });

    // Ten agents, each on one of three models; 90 % succeed, 8 % fail, 2 % are cancelled;
    // durations log-normal-ish around 1.5 s; tokens in the hundreds; spread evenly over 366 days.
    const t0 = performance.now();
    for (let from = 0; from < N; from += 100_000) {
      const to = Math.min(N, from + 100_000);
      await db.execute(sql`insert into usage_execution_records (execution_id, workspace_id, environment, agent_id, model, status, completed_at, duration_ms, input_tokens, output_tokens, tool_calls)
        select 'exe_hist_' || g, ${m.workspaceId}, 'live', 'agt_hist_' || (g % ${sql.raw(String(AGENTS))}),
          (array['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'openai-compatible/llama3.1'])[1 + (g % ${sql.raw(String(AGENTS))}) % 3],
          case when (g::bigint * 7919) % 50 = 0 then 'cancelled' when (g::bigint * 104729) % 12 = 1 then 'failed' else 'succeeded' end,
          now() - (g::float8 / ${sql.raw(String(N))} * interval '366 days'),
          (exp(7.2 + 0.9 * (((g * 2654435761::bigint) % 1000003)::float8 / 1000003 + ((g * 40503::bigint) % 999983)::float8 / 999983 - 1)))::int,
          200 + g % 700, 20 + g % 180, g % 3
        from generate_series(${sql.raw(String(from + 1))}, ${sql.raw(String(to))}) g`);
    }
    const insertMs = performance.now() - t0;
    const [backend] = database.kind === 'postgres' ? await queryRows<{ pid: number }>(db, sql`select pg_backend_pid() as pid`) : [];
    const cpu0 = process.cpuUsage();
    const backend0 = backend ? cpuMs(backend.pid) : 0;
    const c0 = performance.now();
    await compactAll(db);
    // What the compactor does after such a backlog (server/modules/usage/compactor.ts), timed with it.
    await db.execute(sql`vacuum usage_execution_records`);
    const compactMs = performance.now() - c0;
    const own = process.cpuUsage(cpu0);
    const used = (own.user + own.system) / 1000 + (backend ? cpuMs(backend.pid) - backend0 : 0);
    const [rows] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from usage_execution_rollups where workspace_id = ${m.workspaceId}`);
    console.log(JSON.stringify({ key, insertMs: Math.round(insertMs), compactMs: Math.round(compactMs), compactCpuMs: Math.round(used), rollupRows: rows!.n }));
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
