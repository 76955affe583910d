// The audit part of `npm run bench` (docs/benchmark.md, "Audit log"):
//   - cost: what writing the record adds to a key creation. In this bench process, on PGlite (a
//     fresh data directory) and on the bench's PostgreSQL database (a pool of one connection):
//     BENCH_AUDIT_OPS (500) transactions of each of two arms, taking turns: a key creation's
//     transaction as server/modules/keys/service.ts writes it (the key's row, then its event) with
//     and without its audit record in the event's statement (`emitAudited`, as the service does). p50 of
//     each and of the difference; and the real `createKey` p50 for reference.
//   - list: BENCH_AUDIT_ROWS (1,000,000) records in one workspace of the PostgreSQL database (50
//     actors, 28 actions, 50,000 targets, spread over the last 364 days), then `GET
//     /v1/audit-events` over HTTP against one app process: the newest page, each filter, a day's
//     window and a page deep in the middle. BENCH_AUDIT_READS (200) requests each, one at a time; p50
//     and p95.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/client';
import { migrateDatabase } from '../../db/migrate';
import { apiKeys } from '../../db/schema';
import { transaction } from '../../db/transaction';
import { AUDIT_ACTIONS } from '../../server/modules/audit/actions';
import { emitAudited } from '../../server/modules/audit/record';
import { createUser } from '../../server/modules/auth/users';
import { emit } from '../../server/modules/events/emit';
import { SCOPES } from '../../server/modules/vocabulary/scopes';
import { createKey } from '../../server/modules/keys/service';
import { newId } from '../../server/platform/ids';
import { call, cli, clientAgent, type Client } from './hosted';
import { freePorts, median, percentile, spawnService, stopAll, waitFor } from './util';

const OPS = Number(process.env.BENCH_AUDIT_OPS ?? 500);
const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
const READS = Number(process.env.BENCH_AUDIT_READS ?? 200);

export interface AuditSetup {
  env: NodeJS.ProcessEnv;
}

const f = (x: number) => x.toFixed(2);

async function cost(label: string, opts: { databaseUrl?: string; dataDir: string }): Promise<void> {
  const database = await openDatabase({ ...opts, max: 1 });
  await migrateDatabase(database);
  const { db } = database;
  try {
    const m = await createUser(db, { email: `audit-bench-${Date.now()}@example.com` });
    const actor = { kind: 'user' as const, userId: m.userId, role: 'owner' as const, workspaceId: m.workspaceId, environment: 'live' as const, scopes: [...SCOPES], request: { ip: '203.0.113.7', userAgent: 'bench/1.0', requestId: newId('req') } };
    /** A key creation's transaction (keys/service.ts `createKey`), with or without its audit record. */
    const creation = async (audited: boolean) => {
      const t0 = performance.now();
      await transaction(db, async (tx) => {
        const id = newId('key');
        await tx.insert(apiKeys).values({ id, workspaceId: m.workspaceId, environment: 'live', name: 'bench', prefix: 'svc_live_sk_abcd', hash: newId('req'), scopes: ['agents:read'], createdByUserId: m.userId });
        const view = { id, name: 'bench', scopes: ['agents:read'], environment: 'live' };
        if (audited) await emitAudited(tx, actor, 'key.created', view, actor, { action: 'key.created', target: { type: 'key', id }, changes: { name: [null, 'bench'], scopes: [null, ['agents:read']] } });
        else await emit(tx, actor, 'key.created', view);
      });
      return performance.now() - t0;
    };
    for (let i = 0; i < 50; i++) await creation(i % 2 === 0); // warm-up
    const plain: number[] = [];
    const audited: number[] = [];
    for (let i = 0; i < OPS; i++) {
      // Turns alternate which arm goes first.
      if (i % 2 === 0) {
        plain.push(await creation(false));
        audited.push(await creation(true));
      } else {
        audited.push(await creation(true));
        plain.push(await creation(false));
      }
    }
    const real: number[] = [];
    for (let i = 0; i < Math.min(OPS, 200); i++) {
      const t0 = performance.now();
      await createKey(db, actor, { name: `real ${i}`, environment: 'live', scopes: ['agents:read'] });
      real.push(performance.now() - t0);
    }
    const diffs = plain.map((p, i) => audited[i]! - p);
    console.log(
      `  cost (${label}, ${OPS} of each, in this process): key creation's transaction p50 ${f(percentile(plain, 50))} ms without the record, ` +
        `${f(percentile(audited, 50))} ms with it (median difference ${diffs.length ? f(median(diffs)) : '?'} ms); createKey (hashing the secret included) p50 ${f(percentile(real, 50))} ms`,
    );
  } finally {
    await database.close();
  }
}

/** `n` audit records in workspace `ws`, ids in time order (ULID: 10 characters of time), over the last 364 days. */
async function seed(databaseUrl: string, ws: string, n: number): Promise<number> {
  const { default: pg } = await import('postgres');
  const db = pg(databaseUrl, { max: 1, onnotice: () => {} });
  const t0 = performance.now();
  try {
    const actions = `array[${AUDIT_ACTIONS.map((a) => `'${a}'`).join(',')}]`;
    // Crockford base32 of the time in ms (10 characters), then 16 of the row number: a valid, time-ordered id.
    const ulidTime = `(select string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (div(t.ms, power(32::numeric, 9 - i))::bigint % 32)::int + 1, 1), '' order by i) from generate_series(0, 9) i)`;
    for (let from = 0; from < n; from += 100_000) {
      const to = Math.min(n, from + 100_000);
      await db.unsafe(`insert into audit_events (id, workspace_id, environment, action, actor_type, actor_id, actor_label, target_type, target_id, ip, user_agent, request_id, changes, created_at)
        select 'aud_' || ${ulidTime} || lpad(upper(to_hex(g)), 16, '0'), '${ws}', 'live', (${actions})[1 + (g::bigint * 7919) % ${AUDIT_ACTIONS.length}],
          'user', 'usr_bench_' || (g % 50), 'bench' || (g % 50) || '@example.com', 'key', 'key_bench_' || (g % 50000),
          '203.0.113.' || (g % 250), 'bench/1.0', 'req_bench_' || g, json_build_object('name', json_build_array(null, 'k' || g)), to_timestamp(t.ms / 1000.0)
        from generate_series(${from + 1}, ${to}) g,
          lateral (select (extract(epoch from now()) * 1000 - 364::bigint * 86400000)::bigint + (g::bigint * 364 * 86400000 / ${n}) as ms) t`);
    }
    await db.unsafe('analyze audit_events');
  } finally {
    await db.end();
  }
  return performance.now() - t0;
}

async function list(setup: AuditSetup): Promise<void> {
  const [port] = await freePorts(1);
  const env = { ...setup.env, PORT: String(port), RUN_WORKERS: 'true' };
  const email = `audit-list-${Math.random().toString(36).slice(2)}@example.com`;
  await cli(env, ['create-user', '--email', email, '--password', 'bench-password']);
  await cli(env, ['set-plan', '--email', email, '--plan', 'enterprise', '--rpm', '100000000']);
  const key = await cli(env, ['create-key', '--email', email, '--env', 'live', '--scopes', 'all', '--name', 'audit bench']);
  const { default: pg } = await import('postgres');
  const direct = pg(setup.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  const [row] = await direct<{ workspace_id: string }[]>`select workspace_id from api_keys where prefix = ${key.slice(0, 16)}`;
  await direct.end();
  const seedMs = await seed(setup.env.DATABASE_URL!, row!.workspace_id, ROWS);
  const app = spawnService('main', env);
  try {
    await waitFor(`http://127.0.0.1:${port}/readyz`, app);
    const c: Client = { agent: clientAgent(), origin: `http://127.0.0.1:${port}`, key };
    const newest = (await call<{ data: { id: string; createdAt: string }[] }>(c, 'GET', '/v1/audit-events?limit=100', undefined, 200)).body.data;
    const middle = new Date(Date.now() - 182 * 86_400_000);
    const day = middle.toISOString().slice(0, 10);
    const next = new Date(middle.getTime() + 86_400_000).toISOString().slice(0, 10);
    // An id from the middle of the log: a page deep in it.
    const deep = (await call<{ data: { id: string }[] }>(c, 'GET', `/v1/audit-events?limit=1&end=${day}`, undefined, 200)).body.data[0]!.id;
    const queries: [string, string][] = [
      ['newest page (20)', '/v1/audit-events'],
      ['action=budget.deleted', '/v1/audit-events?action=budget.deleted'],
      ['actorId (1 of 50)', '/v1/audit-events?actorId=usr_bench_7'],
      ['targetId (20 records)', '/v1/audit-events?targetId=key_bench_4242'],
      [`a day (${day})`, `/v1/audit-events?start=${day}&end=${next}`],
      ['a page from the middle (after=)', `/v1/audit-events?after=${deep}`],
      ['action + actorId, a page from the middle', `/v1/audit-events?action=agent.updated&actorId=usr_bench_9&after=${deep}`],
    ];
    console.log(`  list (PostgreSQL, 1 app process, ${ROWS.toLocaleString('en')} records in one workspace, seeded in ${(seedMs / 1000).toFixed(1)} s; newest ${newest[0]?.createdAt}; ${READS} requests each, one at a time):`);
    for (const [label, p] of queries) {
      const lat: number[] = [];
      let count = 0;
      for (let i = 0; i < READS; i++) {
        const t0 = performance.now();
        const res = await call<{ data: unknown[] }>(c, 'GET', p, undefined, 200);
        lat.push(performance.now() - t0);
        count = res.body.data.length;
      }
      console.log(`    ${label.padEnd(44)} p50 ${f(percentile(lat, 50))} ms, p95 ${f(percentile(lat, 95))} ms (${count} records a page)`);
    }
    await c.agent.close();
  } finally {
    await stopAll([app]);
  }
}

export async function benchAudit(setup: AuditSetup): Promise<void> {
  console.log('\nAudit log (docs/benchmark.md, "Audit log"):');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-bench-audit-'));
  try {
    await cost('PGlite', { dataDir });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  await cost('PostgreSQL', { databaseUrl: setup.env.DATABASE_URL, dataDir: '' });
  await list(setup);
}
