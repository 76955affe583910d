// What resolving the agent version costs an execute (docs/versions.md, "Cost"): the start
// statement's read of the agent, with and without the columns that resolve the version
// (executions/versions.ts), run alternately in one process on PGlite (its CPU is this process's),
// and the JS that builds those columns alone. Not part of `npm run bench`.
// Usage: TEST_DB=pglite node --import tsx scripts/bench/version-cost.ts [rounds]
import { and, eq } from 'drizzle-orm';
import { agents } from '../../db/schema';
import { versionToRun } from '../../server/modules/executions/versions';
import { startServer } from '../../test/harness';

const ROUNDS = Number(process.argv[2] ?? 2_000);

const api = await startServer();
try {
  const key = await api.seed.key({ environment: 'live' });
  const created = await api.request<{ id: string }>('POST', '/v1/agents', { key: key.key, body: { name: 'Cost', instructions: 'One.' } });
  const id = created.body.id;
  // Version 2 exists, production follows it: the common case (the latest, no older config read).
  await api.request('PATCH', `/v1/agents/${id}`, { key: key.key, body: { instructions: 'Two.' } });
  const where = and(eq(agents.id, id), eq(agents.workspaceId, key.workspace.id));
  const plain = () => api.db.select({ agent: agents }).from(agents).where(where).execute();
  const versioned = () => api.db.select({ agent: agents, ...versionToRun({}, undefined).columns }).from(agents).where(where).execute();
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  for (let i = 0; i < 200; i++) await Promise.all([plain(), versioned()]);
  let [a, b] = [0, 0];
  for (let i = 0; i < ROUNDS; i++) {
    let t = cpu();
    await plain();
    a += cpu() - t;
    t = cpu();
    await versioned();
    b += cpu() - t;
  }
  const t = cpu();
  for (let i = 0; i < ROUNDS; i++) versionToRun({}, undefined);
  const js = cpu() - t;
  console.log(`${ROUNDS} rounds: the agent read ${((a / ROUNDS) * 1000).toFixed(0)} µs of CPU, with the version's columns ${((b / ROUNDS) * 1000).toFixed(0)} µs (+${(((b - a) / ROUNDS) * 1000).toFixed(0)} µs); building the columns alone ${((js / ROUNDS) * 1000).toFixed(1)} µs`);
} finally {
  await api.close();
}
