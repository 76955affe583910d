'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Budget } from '@/app/_lib/types';
import { useEnvironment, useTRPC } from '../providers';
import { EmptyState, LoadError } from '../states';
import { Button, Card, Spinner } from '../ui';
import { useAgentNames, useKeyNames } from '../usage/use-usage';
import { BudgetCard } from './budget-card';
import { BudgetDialog } from './budget-dialog';
import { DeleteBudgetDialog } from './delete-budget-dialog';
import type { Names } from './target-label';
import { useCan } from '../team/use-can';

// The environment's budgets (docs/budgets.md), newest first: each with its bar, period, reset,
// forecast and status; create, edit and delete (confirmed). There are at most 100 per
// environment, so one page holds them all. What they have spent moves as runs go: the page reads
// them again every few seconds while it is open.

/** How often the page reads the budgets again. */
const REFRESH_MS = 15_000;

function GaugeIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" className="size-6">
      <path d="M4.5 17a8.5 8.5 0 1 1 15 0" />
      <path d="m12 13 4-4.5" />
      <circle cx="12" cy="13" r="1.2" />
    </svg>
  );
}

function Skeleton() {
  return (
    <div className="grid gap-4 lg:grid-cols-2" aria-busy="true" aria-label="Loading budgets" data-testid="budgets-loading">
      {[0, 1].map((i) => (
        <Card key={i} className="h-72 animate-pulse p-5">
          <div className="h-4 w-40 rounded bg-slate-200" />
          <div className="mt-6 h-2.5 rounded-full bg-slate-100" />
          <div className="mt-6 space-y-3">
            <div className="h-3 w-3/4 rounded bg-slate-100" />
            <div className="h-3 w-2/3 rounded bg-slate-100" />
            <div className="h-3 w-1/2 rounded bg-slate-100" />
          </div>
        </Card>
      ))}
    </div>
  );
}

export function BudgetsView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const testMode = environment === 'test';

  const list = useQuery({ ...trpc.budgets.list.queryOptions({ limit: 100 }), refetchInterval: REFRESH_MS });
  const agents = useAgentNames();
  const keys = useKeyNames();
  const names: Names = { agents: agents.data, keys: keys.data };
  const budgets = list.data?.data ?? [];
  const exceeded = budgets.filter((b) => b.status === 'exceeded').length;

  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Budget | null>(null);
  const [deleting, setDeleting] = useState<Budget | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.budgets.pathKey() });

  const can = useCan();
  const addButton = (label: string) =>
    can.administer && (
    <Button onClick={() => setCreating(true)} data-testid="create-budget">
      <span aria-hidden>+</span> {label}
    </Button>
  );

  return (
    <div className="space-y-6" data-testid="budgets-page">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Budgets</h1>
          <p className="mt-1 max-w-2xl text-sm text-slate-600">
            Caps on what the workspace, an agent or an API key spends per day, week, month or in total, in USD or in tokens. A blocking budget that is
            spent refuses new runs and stops running ones; a notify-only one sends alerts.{' '}
            {testMode ? 'You are viewing test budgets: test runs cost $0, so only token budgets fill up.' : 'You are viewing live budgets.'}
          </p>
        </div>
        <div className="flex items-center gap-2">
          {list.isFetching && !list.isPending && <Spinner className="text-slate-400" />}
          {budgets.length > 0 && addButton('New budget')}
        </div>
      </div>

      {list.isPending ? (
        <Skeleton />
      ) : list.isError && !list.data ? (
        <Card>
          <LoadError what="Your budgets" error={list.error} onRetry={() => void list.refetch()} testId="budgets-error" />
        </Card>
      ) : budgets.length === 0 ? (
        <Card>
          <EmptyState icon={<GaugeIcon />} tone={testMode ? 'amber' : 'indigo'} title={`No ${testMode ? 'test' : 'live'} budgets yet`} action={addButton('New budget')} testId="budgets-empty">
            Cap what runs may spend — say $50 a month for the workspace, or a million tokens a day for one agent — and be alerted as it fills up, or have runs refused once it
            is spent.
          </EmptyState>
        </Card>
      ) : (
        <>
          <p className="text-sm text-slate-600" data-testid="budgets-count">
            {budgets.length === 1 ? '1 budget' : `${budgets.length} budgets`}
            {exceeded > 0 && <span className="font-medium text-red-700"> · {exceeded} exceeded</span>}
            {list.isError && <span className="text-amber-800"> · could not refresh, showing what was last read</span>}
          </p>
          <h2 className="sr-only">Budgets</h2>
          <ul className="grid gap-4 lg:grid-cols-2" aria-label="Budgets">
            {budgets.map((b) => (
              <li key={b.id} className="flex min-w-0 flex-col [&>*]:flex-1">
                <BudgetCard budget={b} names={names} now={list.dataUpdatedAt} onEdit={can.administer ? () => setEditing(b) : undefined} onDelete={can.administer ? () => setDeleting(b) : undefined} />
              </li>
            ))}
          </ul>
        </>
      )}

      {(creating || editing) && (
        <BudgetDialog
          budget={editing ?? undefined}
          environment={environment}
          names={names}
          onClose={() => {
            setCreating(false);
            setEditing(null);
          }}
          onSaved={() => {
            setCreating(false);
            setEditing(null);
            refresh();
          }}
        />
      )}
      {deleting && (
        <DeleteBudgetDialog
          budget={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            setDeleting(null);
            refresh();
          }}
        />
      )}
    </div>
  );
}
