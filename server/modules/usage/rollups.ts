import { sql, type SQL } from 'drizzle-orm';

/**
 * The `do update set` of an additive upsert into a rollup table aliased `u`: each counter adds
 * the incoming row's, and the duration histograms merge (`usage_hist_add`). What the compactor
 * and each process's request counter write with, so that two writers of one row never lose a count.
 */
export const addToRollup = (counters: readonly string[]): SQL =>
  sql.raw([...counters.map((c) => `${c} = u.${c} + excluded.${c}`), 'duration_hist = usage_hist_add(u.duration_hist, excluded.duration_hist)'].join(', '));
