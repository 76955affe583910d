export {};

// Forked by scripts/bench/schedules.ts with the bench database's environment: runs the schedule
// tick BENCH_TICKS times at an instant when none of the (idle) schedules is due, as a worker's
// minute tick would, and reports this process's CPU per tick (the database side is sampled by
// the parent). Sends {ticks, cpuMs, wallMs} and exits.
const TICKS = Number(process.env.BENCH_TICKS ?? 300);

const { openDatabase } = await import('../../db/client');
const { tick } = await import('../../server/modules/schedules/ticker');
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: '.data/bench-unused', max: 1 });
// Warm-up: connection, prepared plans, JIT.
for (let i = 0; i < 20; i++) await tick(database.db);
process.send!({ ready: true });
await new Promise<void>((resolve) => process.once('message', () => resolve()));
const cpu = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < TICKS; i++) {
  const result = await tick(database.db);
  if (result.fired !== 0) throw new Error('bench: an idle schedule fired');
}
const used = process.cpuUsage(cpu);
process.send!({ ticks: TICKS, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started });
await database.close();
process.exit(0);
