'use client';

import type { ReactNode } from 'react';
import { amountsOf, forecastOf, formatAmount, formatPercentUsed, formatThresholds, PERIOD_LABEL, PERIOD_RULE, percentUsed, warningAt, type Forecast } from '@/app/_lib/budgets';
import { formatDateTime } from '@/app/_lib/dates';
import { formatTimeLeft } from '@/app/_lib/format';
import type { Budget } from '@/app/_lib/types';
import { Badge, Button, Card } from '../ui';
import { TargetLabel, type Names } from './target-label';

// One budget: what it counts, its bar (spent of the limit: the bar stops at 100 %, the figure
// does not), its period and reset written in the budget's own zone, the forecast to the
// period's end at the rate so far, its status and action, and Edit / Delete.

type Level = 'ok' | 'near' | 'exceeded';

const levelOf = (b: Budget, percent: number): Level => {
  if (b.status === 'exceeded') return 'exceeded';
  const warn = warningAt(b);
  return warn !== null && percent >= warn ? 'near' : 'ok';
};

const BAR: Record<Level, string> = { ok: 'bg-indigo-500', near: 'bg-amber-500', exceeded: 'bg-red-500' };
const STATUS: Record<Level, { tone: 'green' | 'amber' | 'red'; label: string }> = {
  ok: { tone: 'green', label: 'Within limit' },
  near: { tone: 'amber', label: 'Near limit' },
  exceeded: { tone: 'red', label: 'Exceeded' },
};

function ProgressBar({ budget, percent, level }: { budget: Budget; percent: number; level: Level }) {
  const { unit, limit, spent } = amountsOf(budget);
  const shown = spent > 0 ? Math.max(Math.min(percent, 100), 1) : 0;
  return (
    <div>
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1 text-sm">
        <p className="min-w-0 text-slate-600">
          <span className="font-semibold text-slate-900" data-testid="budget-spent">
            {formatAmount(spent, unit)}
          </span>{' '}
          of <span data-testid="budget-limit">{formatAmount(limit, unit)}</span>
        </p>
        <p className={`text-base font-semibold tabular-nums ${level === 'exceeded' ? 'text-red-700' : 'text-slate-900'}`} data-testid="budget-percent">
          {formatPercentUsed(percent)}
        </p>
      </div>
      <div
        role="progressbar"
        aria-label={`${budget.name}: spent of the limit`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.min(100, Math.floor(percent))}
        aria-valuetext={`${formatPercentUsed(percent)} of the limit (${formatAmount(spent, unit)} of ${formatAmount(limit, unit)})`}
        className="relative mt-2 h-2.5 overflow-hidden rounded-full bg-slate-100 ring-1 ring-slate-200/70 ring-inset"
        data-testid="budget-bar"
      >
        <div className={`h-full rounded-full ${BAR[level]}`} style={{ width: `${shown}%` }} data-testid="budget-bar-fill" />
        {budget.alertAt
          .filter((p) => p < 100)
          .map((p) => (
            <span key={p} aria-hidden className="absolute inset-y-0 w-0.5 -translate-x-1/2 bg-slate-900/20" style={{ left: `${p}%` }} title={`Alert at ${p}%`} />
          ))}
      </div>
    </div>
  );
}

function ForecastText({ budget, forecast }: { budget: Budget; forecast: Forecast | null }) {
  if (!forecast) return <span className="text-slate-500">None: a total budget has no period end to forecast to.</span>;
  const { unit } = amountsOf(budget);
  const over = forecast.percent >= 100;
  return (
    <span>
      <span className={over ? 'font-medium text-amber-800' : undefined}>
        ≈ {formatAmount(forecast.value, unit)} by the reset ({formatPercentUsed(forecast.percent)})
      </span>
      {over && budget.status !== 'exceeded' && <span className="text-amber-800"> — on course to pass the limit</span>}
      {forecast.early && forecast.value > 0 && <span className="text-slate-500"> · early in the period: a rough guess</span>}
    </span>
  );
}

function Detail({ term, children, testId }: { term: string; children: ReactNode; testId: string }) {
  return (
    <div className="min-w-0 sm:grid sm:grid-cols-[6.5rem_1fr] sm:gap-3">
      <dt className="text-xs font-medium text-slate-500 sm:pt-px">{term}</dt>
      <dd className="min-w-0 text-sm break-words text-slate-800" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** What an exceeded budget does now. */
function consequence(b: Budget, reset: string | null, percent: number): string {
  if (b.action === 'notify') return 'Over the limit: alerts were sent, runs go on.';
  // Exceeded short of the limit: a call's prompt was more than what was left (docs/budgets.md, "Reservations").
  const why = percent < 100 ? 'What is left cannot hold the next model call. ' : '';
  return why + (reset ? `Runs it counts are refused until ${reset}.` : 'Runs it counts are refused until the limit is raised or the budget deleted.');
}

export function BudgetCard({ budget, names, now, onEdit, onDelete }: { budget: Budget; names: Names; now: number; onEdit?: () => void; onDelete?: () => void }) {
  const percent = percentUsed(budget);
  const level = levelOf(budget, percent);
  const status = STATUS[level];
  const forecast = forecastOf(budget, now);
  const zone = budget.timezone;
  const reset = budget.resetsAt ? formatDateTime(budget.resetsAt, { timeZone: zone }) : null;
  const left = budget.resetsAt ? formatTimeLeft(budget.resetsAt, now) : null;
  const unpriced = 'usd' in budget.limit && budget.spent.unpricedCalls > 0;

  return (
    <Card className="flex min-w-0 flex-col overflow-hidden" data-testid="budget-card" data-budget-id={budget.id} data-status={budget.status}>
      {level === 'exceeded' && <div aria-hidden className="h-1 bg-red-500" />}
      <div className="flex-1 space-y-4 p-4 sm:p-5">
        <div className="flex flex-wrap items-start justify-between gap-x-3 gap-y-2">
          <div className="min-w-0">
            <h2 className="font-semibold break-words text-slate-900" data-testid="budget-name">
              {budget.name}
            </h2>
            <p className="mt-0.5 text-xs text-slate-500">
              Counts <TargetLabel target={budget.target} names={names} /> · {PERIOD_LABEL[budget.period]}
            </p>
          </div>
          <div className="flex flex-wrap gap-1.5">
            <Badge tone={status.tone} data-testid="budget-status">
              {status.label}
            </Badge>
            <Badge
              tone={budget.action === 'block' ? 'violet' : 'slate'}
              title={budget.action === 'block' ? 'Once spent, runs it counts are refused' : 'Only alerts: never stops a run'}
              data-testid="budget-action"
            >
              {budget.action === 'block' ? 'Blocking' : 'Notify only'}
            </Badge>
          </div>
        </div>

        <ProgressBar budget={budget} percent={percent} level={level} />
        {level === 'exceeded' && (
          <p className="text-sm font-medium text-red-700" data-testid="budget-consequence">
            {consequence(budget, reset, percent)}
          </p>
        )}

        <dl className="space-y-2 border-t border-slate-100 pt-3">
          <Detail term="Period" testId="budget-period">
            {budget.period === 'total' ? (
              'All time: a total never resets.'
            ) : (
              <>
                {PERIOD_LABEL[budget.period]}, {PERIOD_RULE[budget.period]} in <span className="font-medium">{zone}</span>
                <span className="block text-xs text-slate-500">Since {formatDateTime(budget.periodStart, { timeZone: zone })}</span>
              </>
            )}
          </Detail>
          {reset && (
            <Detail term="Resets" testId="budget-reset">
              {reset}
              <span className="text-slate-500"> · {left ? `in ${left}` : 'now'}</span>
            </Detail>
          )}
          <Detail term="Forecast" testId="budget-forecast">
            <ForecastText budget={budget} forecast={forecast} />
          </Detail>
          <Detail term="Alerts" testId="budget-thresholds">
            {formatThresholds(budget.alertAt) ? `At ${formatThresholds(budget.alertAt)} of the limit` : 'None before the limit'}
          </Detail>
          {unpriced && (
            <p className="rounded-md bg-amber-50 px-2.5 py-1.5 text-xs text-amber-900 ring-1 ring-amber-200" data-testid="budget-unpriced">
              {budget.spent.unpricedCalls === 1 ? '1 model call' : `${budget.spent.unpricedCalls} model calls`} this period used a model without a price: its cost is not in
              the amount spent.
            </p>
          )}
        </dl>
      </div>
      {/* Only for admins and owners (docs/teams.md). */}
      {onEdit && onDelete && (
        <div className="flex justify-end gap-2 border-t border-slate-100 px-4 py-2.5 sm:px-5">
          <Button variant="secondary" className="px-2.5 py-1 text-xs" onClick={onEdit} aria-label={`Edit ${budget.name}`} data-testid="budget-edit">
            Edit
          </Button>
          <Button variant="dangerGhost" className="px-2.5 py-1 text-xs" onClick={onDelete} aria-label={`Delete ${budget.name}`} data-testid="budget-delete">
            Delete
          </Button>
        </div>
      )}
    </Card>
  );
}
