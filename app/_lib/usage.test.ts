import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionUsage, ExecutionUsageRow, RequestUsage, RequestUsageRow } from './types';
import { executionGroups, formatPercent, formatUsd, rangeOf, requestGroups, windowOf } from './usage';
import { csvField, csvFileName, usageCsv } from './usage-csv';

const execRow = (fields: Partial<ExecutionUsageRow>): ExecutionUsageRow => ({
  executions: 0,
  succeeded: 0,
  failed: 0,
  cancelled: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  toolCalls: 0,
  costUsd: 0,
  durationMs: null,
  ...fields,
});

const reqRow = (fields: Partial<RequestUsageRow>): RequestUsageRow => ({
  requests: 0,
  succeeded: 0,
  clientErrors: 0,
  unauthorized: 0,
  forbidden: 0,
  rateLimited: 0,
  serverErrors: 0,
  durationMs: null,
  ...fields,
});

const NOW = Date.parse('2026-11-21T14:35:12.000Z');

describe('usage ranges', () => {
  it('24 h is the 24 UTC hours ending with the current one, on one page', () => {
    assert.deepEqual(windowOf(rangeOf('24h'), NOW), { start: '2026-11-20T15:00:00.000Z', end: '2026-11-21T15:00:00.000Z', granularity: 'hour', limit: 24 });
  });

  it('7, 30 and 90 days end with today (UTC)', () => {
    assert.deepEqual(windowOf(rangeOf('7d'), NOW), { start: '2026-11-15T00:00:00.000Z', end: '2026-11-22T00:00:00.000Z', granularity: 'day', limit: 7 });
    assert.equal(windowOf(rangeOf('30d'), NOW).start, '2026-10-23T00:00:00.000Z');
    assert.equal(windowOf(rangeOf('90d'), NOW).limit, 90);
  });

  it('an unknown range in the address falls back to 7 days', () => {
    assert.equal(rangeOf('1y').id, '7d');
    assert.equal(rangeOf(undefined).id, '7d');
  });
});

describe('usage groups', () => {
  it('keys each analytics.byGroup row by its group, largest first, an unknown cost kept unknown and the p95 taken as merged', () => {
    const rows = [
      execRow({ agentId: 'agt_1', executions: 3, failed: 1, totalTokens: 15, costUsd: 0.3, durationMs: { p50: 10, p95: 40, p99: 50 } }),
      execRow({ agentId: 'agt_2', executions: 4, costUsd: null, durationMs: null }),
    ];
    assert.deepEqual(
      executionGroups(rows, 'agentId').map((s) => [s.id, s.executions, s.failed, s.totalTokens, s.costUsd, s.p95]),
      [
        ['agt_2', 4, 0, 0, null, null],
        ['agt_1', 3, 1, 15, 0.3, 40],
      ],
    );
  });

  it('keys requests by key, largest first', () => {
    const rows = [reqRow({ keyId: 'key_2', requests: 1, unauthorized: 1 }), reqRow({ keyId: 'key_1', requests: 5, succeeded: 2, clientErrors: 1, rateLimited: 2 })];
    assert.deepEqual(
      requestGroups(rows).map((k) => [k.id, k.requests, k.succeeded, k.clientErrors, k.rateLimited, k.unauthorized]),
      [
        ['key_1', 5, 2, 1, 2, 0],
        ['key_2', 1, 0, 0, 0, 1],
      ],
    );
  });
});

describe('usage formatting', () => {
  it('never shows an unknown cost as zero', () => {
    assert.equal(formatUsd(null), 'unknown');
    assert.equal(formatUsd(0), '$0.00');
    assert.equal(formatUsd(0.0042), '$0.0042');
    assert.equal(formatUsd(12.345), '$12.35');
  });

  it('shows rates with one decimal, and none without executions', () => {
    assert.equal(formatPercent(null), '—');
    assert.equal(formatPercent(0.25), '25%');
    assert.equal(formatPercent(1 / 3), '33.3%');
  });
});

describe('usage CSV', () => {
  it('quotes what needs quoting and defuses formulas', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a, "b"'), '"a, ""b"""');
    assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvField(null), '');
    assert.equal(csvField(0.5), '0.5');
  });

  it('writes every section: summary, buckets, cost by model, top agents and keys', () => {
    const range = rangeOf('24h');
    const window = windowOf(range, NOW);
    const executions: ExecutionUsage = {
      granularity: 'hour',
      hasMore: false,
      totals: execRow({ executions: 4, succeeded: 3, failed: 1, totalTokens: 40, costUsd: null, durationMs: { p50: 100, p95: 250.4, p99: 300 } }),
      data: [{ start: window.start, end: '2026-11-20T16:00:00.000Z', results: [execRow({ executions: 4, succeeded: 3, failed: 1, costUsd: null })] }],
    };
    const requests: RequestUsage = {
      granularity: 'hour',
      hasMore: false,
      totals: reqRow({ requests: 2, succeeded: 1, clientErrors: 1 }),
      data: [{ start: window.start, end: '2026-11-20T16:00:00.000Z', results: [reqRow({ requests: 2, succeeded: 1, clientErrors: 1 })] }],
    };
    const csv = usageCsv({
      environment: 'live',
      range,
      window,
      executions,
      requests,
      models: [{ id: 'openai/gpt-x', executions: 4, succeeded: 3, failed: 1, cancelled: 0, inputTokens: 30, outputTokens: 10, totalTokens: 40, costUsd: null, p95: 250.4 }],
      agents: [{ id: 'agt_1', name: 'Helper, v2', deleted: false, p95: 250.4, executions: 4, succeeded: 3, failed: 1, cancelled: 0, inputTokens: 30, outputTokens: 10, totalTokens: 40, costUsd: null }],
      keys: [{ id: 'key_1', name: null, revoked: true, requests: 2, succeeded: 1, clientErrors: 1, unauthorized: 0, forbidden: 0, rateLimited: 0, serverErrors: 0 }],
    });
    const lines = csv.split('\r\n');
    assert.deepEqual(lines.slice(0, 3), ['Usage', 'environment,range,start,end,granularity', `live,Last 24 hours,${window.start},${window.end},hour`]);
    assert.ok(lines.includes('4,0.25,40,unknown,250,2'), 'summary');
    assert.ok(lines.includes(`${window.start},2026-11-20T16:00:00.000Z,4,3,1,0,0,0,0,0,unknown,,`), 'execution bucket');
    assert.ok(lines.includes(`${window.start},2026-11-20T16:00:00.000Z,2,1,1,0,0,0,0,,`), 'request bucket');
    assert.ok(lines.includes('openai/gpt-x,4,30,10,unknown'), 'model');
    assert.ok(lines.includes('agt_1,"Helper, v2",false,4,1,0.25,40,unknown,250'), 'agent');
    assert.ok(lines.includes('key_1,,true,2,1,0,0'), 'key');
    assert.ok(csv.endsWith('\r\n'));
    assert.equal(csvFileName({ environment: 'live', range, window }), 'usage-live-24h-2026-11-21.csv');
  });
});
