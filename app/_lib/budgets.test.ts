import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amountsOf, forecastOf, formatAmount, formatPercentUsed, formatThresholds, percentUsed, warningAt } from './budgets';
import type { Budget } from './types';

const HOUR = 3_600_000;
const start = '2026-11-21T00:00:00.000Z';
const reset = '2026-11-22T00:00:00.000Z';

const budget = (fields: Partial<Budget>): Budget => ({
  id: 'bdg_1',
  name: 'Daily cap',
  target: { type: 'workspace' },
  limit: { tokens: 1000 },
  period: 'day',
  timezone: 'UTC',
  alertAt: [80, 100],
  action: 'block',
  metadata: {},
  spent: { usd: '0.00', tokens: 0, unpricedCalls: 0 },
  periodStart: start,
  resetsAt: reset,
  status: 'ok',
  environment: 'live',
  createdAt: start,
  updatedAt: start,
  ...fields,
});

describe('budgets on the dashboard', () => {
  it('reads the limit and the spend in the limit’s unit', () => {
    assert.deepEqual(amountsOf(budget({ limit: { usd: '25.00' }, spent: { usd: '3.10', tokens: 500, unpricedCalls: 0 } })), { unit: 'usd', limit: 25, spent: 3.1 });
    assert.deepEqual(amountsOf(budget({ spent: { usd: '3.10', tokens: 500, unpricedCalls: 0 } })), { unit: 'tokens', limit: 1000, spent: 500 });
  });

  it('shows the real percentage past the limit, rounded down, and <1% for a little', () => {
    assert.equal(formatPercentUsed(percentUsed(budget({ spent: { usd: '0', tokens: 1300, unpricedCalls: 0 } }))), '130%');
    assert.equal(formatPercentUsed(percentUsed(budget({ spent: { usd: '0', tokens: 999, unpricedCalls: 0 } }))), '99%');
    assert.equal(formatPercentUsed(percentUsed(budget({ spent: { usd: '0', tokens: 1, unpricedCalls: 0 } }))), '<1%');
    assert.equal(formatPercentUsed(0), '0%');
    assert.equal(formatPercentUsed(123456), '123,456%');
  });

  it('forecasts spent ÷ elapsed × the period’s length', () => {
    const b = budget({ spent: { usd: '0', tokens: 300, unpricedCalls: 0 } });
    // 6 hours into the day: 300 tokens → 1,200 by the reset.
    const f = forecastOf(b, Date.parse(start) + 6 * HOUR)!;
    assert.equal(f.value, 1200);
    assert.equal(f.percent, 120);
    assert.equal(f.early, false);
    // An hour in: a tenth of the period has not passed, the forecast is early.
    assert.equal(forecastOf(b, Date.parse(start) + HOUR)!.early, true);
    // Past the reset (the data is a little old): the whole period.
    assert.equal(forecastOf(b, Date.parse(reset) + HOUR)!.value, 300);
    // Before the start (a clock a little off): finite.
    assert.ok(Number.isFinite(forecastOf(b, Date.parse(start) - HOUR)!.value));
    // USD.
    const usd = budget({ limit: { usd: '10.00' }, spent: { usd: '2.50', tokens: 0, unpricedCalls: 0 } });
    assert.equal(forecastOf(usd, Date.parse(start) + 12 * HOUR)!.value, 5);
  });

  it('has no forecast for a total budget', () => {
    assert.equal(forecastOf(budget({ period: 'total', resetsAt: null, periodStart: '1970-01-01T00:00:00.000Z' }), Date.now()), null);
  });

  it('writes amounts and thresholds for people', () => {
    assert.equal(formatAmount(12345.4, 'tokens'), '12,345 tokens');
    assert.equal(formatAmount(1, 'tokens'), '1 token');
    assert.equal(formatAmount(3.1, 'usd'), '$3.10');
    assert.equal(formatThresholds([50, 80, 100]), '50%, 80%, 100%');
    assert.equal(formatThresholds([]), null);
    assert.equal(warningAt(budget({ alertAt: [50, 80, 100] })), 50);
    assert.equal(warningAt(budget({ alertAt: [100, 150] })), null);
  });
});
