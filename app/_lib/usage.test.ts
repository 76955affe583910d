import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionUsage, ExecutionUsageRow, RequestUsage, RequestUsageRow } from './types';
import { costSummary, executionGroups, formatPercent, formatUsd, niceTop, rangeOf, requestGroups, windowOf } from './usage';
import { csvField } from './csv';
import { csvFileName, USAGE_TABLES, usageCsv, type UsageSnapshot, type UsageTableId } from './usage-csv';

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

  it('sums the priced part of a range whose cost is unknown, and names the models without a price', () => {
    const priced = { id: 'openai/gpt-4o', costUsd: 1.2 };
    const free = { id: 'sandbox/echo', costUsd: 0 };
    const unpriced = { id: 'openai/gpt-x', costUsd: null };
    assert.deepEqual(costSummary(1.2, [priced, free], false), { value: '$1.20', detail: 'From the price table' });
    assert.deepEqual(costSummary(0, [free], true), { value: '$0.00', detail: 'Test runs are never charged' });
    assert.deepEqual(costSummary(null, [priced, unpriced], false), { value: '≥ $1.20', detail: 'Priced models only: openai/gpt-x has no price' });
    assert.deepEqual(costSummary(null, [free, unpriced, { id: 'x/y', costUsd: null }], false), { value: 'unknown', detail: '2 models have no price' });
  });

  it('tops a value axis above its highest value, on round ticks', () => {
    assert.equal(niceTop(151, 5), 200);
    assert.equal(niceTop(59, 5), 80);
    assert.equal(niceTop(180, 5), 200);
    assert.equal(niceTop(2_000, 5), 4_000);
    assert.equal(niceTop(0, 5), 1);
    for (const max of [1, 7, 42, 99, 100, 101, 999, 12_345]) assert.ok(niceTop(max, 5) >= max * 1.1, `${max}`);
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

  it('writes each of the page\'s tables as its own tidy CSV: one header row, every row as wide, ISO bucket bounds', () => {
    const snapshot = sample();
    for (const table of Object.keys(USAGE_TABLES) as UsageTableId[]) {
      const csv = usageCsv(snapshot, table);
      assert.ok(csv.endsWith('\r\n'), `${table}: ends with a line break`);
      const [header, ...rows] = parseCsv(csv);
      assert.ok(header && header.length > 1, `${table}: a header`);
      assert.ok(header.every((h) => /^[a-z][a-z0-9_]*$/.test(h)), `${table}: snake_case headers, no titles (${header.join(',')})`);
      assert.equal(new Set(header).size, header.length, `${table}: distinct headers`);
      assert.ok(rows.length > 0, `${table}: rows`);
      for (const row of rows) assert.equal(row.length, header.length, `${table}: ${row.join(',')} is as wide as its header`);
      for (const column of ['bucket_start', 'bucket_end']) {
        const i = header.indexOf(column);
        if (i >= 0) for (const row of rows) assert.match(row[i]!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, `${table}: ${column}`);
      }
    }
  });

  it('writes the numbers raw, an unknown cost as an empty field, booleans as true/false', () => {
    const snapshot = sample();
    const { window } = snapshot;
    const rows = (table: UsageTableId) => parseCsv(usageCsv(snapshot, table));
    assert.deepEqual(rows('executions'), [
      ['bucket_start', 'bucket_end', 'executions', 'succeeded', 'failed', 'cancelled'],
      [window.start, '2026-11-20T16:00:00.000Z', '4', '3', '1', '0'],
      ['2026-11-20T16:00:00.000Z', '2026-11-20T17:00:00.000Z', '', '', '', ''],
    ]);
    assert.deepEqual(rows('tokens')[1], [window.start, '2026-11-20T16:00:00.000Z', '30', '10', '40', '2', '']);
    assert.deepEqual(rows('spend'), [
      ['bucket_start', 'bucket_end', 'executions', 'cost_usd'],
      [window.start, '2026-11-20T16:00:00.000Z', '4', ''],
      ['2026-11-20T16:00:00.000Z', '2026-11-20T17:00:00.000Z', '', ''],
    ]);
    assert.deepEqual(rows('duration')[1], [window.start, '2026-11-20T16:00:00.000Z', '4', '100', '250', '300']);
    assert.deepEqual(rows('requests')[1], [window.start, '2026-11-20T16:00:00.000Z', '2', '1', '1', '0', '0', '0', '0', '', '']);
    assert.deepEqual(rows('cost'), [
      ['model', 'executions', 'input_tokens', 'output_tokens', 'total_tokens', 'cost_usd'],
      ['openai/gpt-x', '4', '30', '10', '40', ''],
      ['sandbox/echo', '1', '2', '3', '5', '0'],
    ]);
    assert.deepEqual(rows('agents')[1], ['agt_1', 'Helper, v2', 'false', '4', '3', '1', '0', '0.25', '40', '', '250']);
    assert.deepEqual(rows('keys')[1], ['key_1', '', 'true', '2', '1', '0', '0']);
    assert.match(usageCsv(snapshot, 'agents'), /\r\nagt_1,"Helper, v2",false,/);
  });

  it('names each download after its table and the last day of the range', () => {
    const { environment, range, window } = sample();
    assert.equal(csvFileName({ environment, range, window }, 'agents'), 'usage-live-24h-2026-11-21-top-agents.csv');
    assert.equal(csvFileName({ environment, range, window }, 'requests'), 'usage-live-24h-2026-11-21-api-requests.csv');
  });
});

/** A strict RFC 4180 reader (throws on a stray quote or a bare line break), as spreadsheets and pandas read the files. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (c === '"') {
      if (field !== '' || wasQuoted) throw new Error(`stray quote at ${i}`);
      quoted = wasQuoted = true;
    } else if (c === ',' || (c === '\r' && text[i + 1] === '\n')) {
      row.push(field);
      field = '';
      wasQuoted = false;
      if (c === '\r') {
        rows.push(row);
        row = [];
        i++;
      }
    } else if (c === '\r' || c === '\n' || wasQuoted) throw new Error(`unexpected ${JSON.stringify(c)} at ${i}`);
    else field += c;
  }
  if (quoted || field !== '' || row.length > 0) throw new Error('the last line is not ended');
  return rows;
}

function sample(): UsageSnapshot {
  const range = rangeOf('24h');
  const window = windowOf(range, NOW);
  const next = '2026-11-20T16:00:00.000Z';
  const executions: ExecutionUsage = {
    granularity: 'hour',
    hasMore: false,
    totals: execRow({ executions: 4, succeeded: 3, failed: 1, totalTokens: 40, costUsd: null, durationMs: { p50: 100, p95: 250.4, p99: 300 } }),
    data: [
      {
        start: window.start,
        end: next,
        results: [execRow({ executions: 4, succeeded: 3, failed: 1, inputTokens: 30, outputTokens: 10, totalTokens: 40, toolCalls: 2, costUsd: null, durationMs: { p50: 100, p95: 250.4, p99: 300 } })],
      },
      { start: next, end: '2026-11-20T17:00:00.000Z', results: [] },
    ],
  };
  const requests: RequestUsage = {
    granularity: 'hour',
    hasMore: false,
    totals: reqRow({ requests: 2, succeeded: 1, clientErrors: 1 }),
    data: [{ start: window.start, end: next, results: [reqRow({ requests: 2, succeeded: 1, clientErrors: 1 })] }],
  };
  return {
    environment: 'live',
    range,
    window,
    executions,
    requests,
    models: [
      { id: 'openai/gpt-x', executions: 4, succeeded: 3, failed: 1, cancelled: 0, inputTokens: 30, outputTokens: 10, totalTokens: 40, costUsd: null, p95: 250.4 },
      { id: 'sandbox/echo', executions: 1, succeeded: 1, failed: 0, cancelled: 0, inputTokens: 2, outputTokens: 3, totalTokens: 5, costUsd: 0, p95: 20 },
    ],
    agents: [{ id: 'agt_1', name: 'Helper, v2', deleted: false, p95: 250.4, executions: 4, succeeded: 3, failed: 1, cancelled: 0, inputTokens: 30, outputTokens: 10, totalTokens: 40, costUsd: null }],
    keys: [{ id: 'key_1', name: null, revoked: true, requests: 2, succeeded: 1, clientErrors: 1, unauthorized: 0, forbidden: 0, rateLimited: 0, serverErrors: 0 }],
  };
}
