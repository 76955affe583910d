import type { z } from 'zod';
import type { Db } from '../../../db/client';
import type { Actor } from '../actor';
import { ApiError } from '../../platform/errors';
import { EXECUTION_GROUPS, executionSeries } from './executions';
import { percentiles } from './histogram';
import { planRange } from './range';
import { REQUEST_GROUPS, requestSeries } from './requests-series';
import type { executionAnalyticsInput, requestAnalyticsInput } from './schemas';
import { seriesPage, sumSeries } from './series';

// GET /v1/analytics/executions and /v1/analytics/requests over the caller's workspace and
// environment (docs/analytics.md).

/** `groupBy`'s fields as `[field, column]`, each known, in the order given, without repeats. */
function parseGroupBy<G extends Record<string, string>>(value: string | undefined, allowed: G): [string, string][] {
  if (value === undefined) return [];
  const fields = [...new Set(value.split(',').map((f) => f.trim()))];
  const names = Object.keys(allowed);
  for (const f of fields) {
    if (!Object.hasOwn(allowed, f)) {
      throw new ApiError('invalid_parameter', `Invalid 'groupBy': '${f.slice(0, 50)}' is not one of ${names.join(', ')}`, { param: 'groupBy' });
    }
  }
  return fields.map((f) => [f, allowed[f]!]);
}

const scopeOf = (actor: Actor) => ({ workspaceId: actor.workspaceId, environment: actor.environment });

export async function executionAnalytics(db: Db, actor: Actor, input: z.infer<typeof executionAnalyticsInput>, now = Date.now()) {
  const range = planRange(input, now);
  const groups = parseGroupBy(input.groupBy, EXECUTION_GROUPS);
  const series = executionSeries({ agentId: input.agentId, agentVersion: input.agentVersion, model: input.model, status: input.status });
  return seriesPage(db, scopeOf(actor), series, range, groups);
}

export async function requestAnalytics(db: Db, actor: Actor, input: z.infer<typeof requestAnalyticsInput>, now = Date.now()) {
  const range = planRange(input, now);
  const groups = parseGroupBy(input.groupBy, REQUEST_GROUPS);
  return seriesPage(db, scopeOf(actor), requestSeries({ keyId: input.keyId }), range, groups);
}

/**
 * Dashboard only: one row per group over the whole range (the Usage page's top agents and top
 * keys), percentiles merged over the range as for `totals`, largest first.
 */
export async function usageByGroup(
  db: Db,
  actor: Actor,
  input: { series: 'executions' | 'requests'; start: string; end?: string; granularity?: 'hour' | 'day'; groupBy: string },
  now = Date.now(),
) {
  const range = planRange({ start: input.start, end: input.end, granularity: input.granularity }, now);
  const query = { granularity: range.granularity, from: range.start, to: range.end, byBucket: false };
  if (input.series === 'executions') {
    const series = executionSeries({});
    const sums = await sumSeries(db, scopeOf(actor), series, { ...query, groups: parseGroupBy(input.groupBy, EXECUTION_GROUPS) });
    return { executions: sums.map((s) => series.view(s, percentiles(s.hist))).sort((a, b) => b.executions - a.executions), requests: [] };
  }
  const series = requestSeries({});
  const sums = await sumSeries(db, scopeOf(actor), series, { ...query, groups: parseGroupBy(input.groupBy, REQUEST_GROUPS) });
  return { executions: [], requests: sums.map((s) => series.view(s, percentiles(s.hist))).sort((a, b) => b.requests - a.requests) };
}
