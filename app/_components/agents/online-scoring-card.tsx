'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatScore, formatShare } from '@/app/_lib/experiments';
import { describeScorer } from '@/app/_lib/scorers';
import type { EvalRule } from '@/app/_lib/types';
import { ConfirmDialog } from '../confirm-dialog';
import { useTRPC } from '../providers';
import { EmptyState, GaugeIcon, LoadError } from '../states';
import { useCan } from '../team/use-can';
import { Badge, Button, Card } from '../ui';
import { RuleDialog } from './rule-dialog';

// The agent's online scoring rules on its page (docs/evals.md, "Online scoring"): each rule's
// scorers, the share of runs it scores, its alert line (scorer, mean, window) with the moving mean
// now, and "Alerting" while that mean is below the line. Developers, admins and owners add, edit
// and delete rules (deleting is confirmed). Read again every few seconds: the moving mean moves.

const REFRESH_MS = 10_000;
const MAX_RULES = 10;
const SMALL = 'px-2.5 py-1 text-xs';

type Dialog = { kind: 'add' } | { kind: 'edit'; rule: EvalRule } | { kind: 'delete'; rule: EvalRule };

function RuleItem({ rule, onEdit, onDelete }: { rule: EvalRule; onEdit: (() => void) | null; onDelete: (() => void) | null }) {
  const alert = rule.alertBelow;
  return (
    <li className="flex flex-col gap-x-4 gap-y-2 px-4 py-3 sm:flex-row sm:items-start sm:justify-between sm:px-5" data-testid="rule-item" data-rule-id={rule.id}>
      <div className="min-w-0 flex-1 space-y-1">
        <p className="flex flex-wrap items-center gap-1.5">
          {rule.scorers.map((s) => (
            <Badge key={String(s.name)} className="font-mono" title={describeScorer(s)} data-testid="rule-scorer">
              {String(s.name)}
            </Badge>
          ))}
          {rule.alerting && (
            <Badge tone="red" data-testid="rule-alerting">
              Alerting
            </Badge>
          )}
        </p>
        <p className="text-sm text-slate-700" data-testid="rule-sample-rate">
          Scores {formatShare(rule.sampleRate)} of runs
        </p>
        {alert ? (
          <p className="text-xs text-slate-500" data-testid="rule-alert-line">
            Alert below <span className="font-medium text-slate-700 tabular-nums">{formatScore(alert.mean)}</span> on <code className="font-mono">{alert.scorer}</code>, over the last{' '}
            {alert.window} scored runs · moving mean{' '}
            <span className={`font-medium tabular-nums ${rule.alerting ? 'text-red-700' : 'text-slate-700'}`} data-testid="rule-moving-mean">
              {rule.movingMean === null ? 'not yet' : formatScore(rule.movingMean)}
            </span>
          </p>
        ) : (
          <p className="text-xs text-slate-400">No alert</p>
        )}
      </div>
      {(onEdit || onDelete) && (
        <div className="flex shrink-0 gap-2">
          {onEdit && (
            <Button variant="secondary" className={SMALL} onClick={onEdit} data-testid="edit-rule">
              Edit
            </Button>
          )}
          {onDelete && (
            <Button variant="dangerGhost" className={SMALL} onClick={onDelete} data-testid="delete-rule">
              Delete
            </Button>
          )}
        </div>
      )}
    </li>
  );
}

function DeleteRuleDialog({ agentId, rule, onClose, onDeleted }: { agentId: string; rule: EvalRule; onClose: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const remove = useMutation(trpc.evalRules.delete.mutationOptions({ onSuccess: onDeleted }));
  return (
    <ConfirmDialog
      title="Delete this scoring rule?"
      label="Delete rule"
      variant="danger"
      onClose={onClose}
      onConfirm={() => remove.mutate({ id: agentId, ruleId: rule.id })}
      pending={remove.isPending}
      error={remove.error}
      testId="delete-rule-dialog"
      confirmTestId="delete-rule-confirm"
    >
      <p>Runs from now on are not scored by it, nor those it sampled and has not scored yet. Scores already given stay on their executions.</p>
    </ConfirmDialog>
  );
}

export function OnlineScoringCard({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const list = useQuery({ ...trpc.evalRules.list.queryOptions({ id: agentId }), refetchInterval: REFRESH_MS });
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const rules = list.data?.data ?? [];
  const close = () => setDialog(null);
  const saved = () => {
    close();
    void queryClient.invalidateQueries({ queryKey: trpc.evalRules.list.queryKey({ id: agentId }) });
  };
  const add = (primary: boolean) =>
    can.build &&
    rules.length < MAX_RULES && (
      <Button variant={primary ? 'primary' : 'secondary'} className={primary ? undefined : SMALL} onClick={() => setDialog({ kind: 'add' })} data-testid="add-rule">
        <span aria-hidden>+</span> Add rule
      </Button>
    );

  return (
    <Card className="scroll-mt-6 overflow-hidden" id="online-scoring" data-testid="online-scoring-card">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <div className="min-w-0">
          <h2 className="font-semibold text-slate-900">Online scoring</h2>
          <p className="text-xs text-slate-500">Score a sample of this agent’s runs as they end, and be alerted when the scores drop.</p>
        </div>
        {rules.length > 0 && add(false)}
      </div>
      {list.isPending ? (
        <div className="h-20 animate-pulse bg-slate-50" aria-busy="true" aria-label="Loading scoring rules" data-testid="rules-loading" />
      ) : list.isError ? (
        <LoadError what="The scoring rules" error={list.error} onRetry={() => void list.refetch()} testId="rules-error" />
      ) : rules.length === 0 ? (
        <EmptyState icon={<GaugeIcon />} title="No scoring rules" action={add(true)} testId="rules-empty">
          A rule scores a share of the runs with the experiments’ scorers; the scores show on each execution.
        </EmptyState>
      ) : (
        <ul className="divide-y divide-slate-100" data-testid="rules-list">
          {rules.map((r) => (
            <RuleItem
              key={r.id}
              rule={r}
              onEdit={can.build ? () => setDialog({ kind: 'edit', rule: r }) : null}
              onDelete={can.build ? () => setDialog({ kind: 'delete', rule: r }) : null}
            />
          ))}
        </ul>
      )}
      {(dialog?.kind === 'add' || dialog?.kind === 'edit') && (
        <RuleDialog key={dialog.kind === 'edit' ? dialog.rule.id : 'new'} agentId={agentId} rule={dialog.kind === 'edit' ? dialog.rule : undefined} onClose={close} onSaved={saved} />
      )}
      {dialog?.kind === 'delete' && <DeleteRuleDialog agentId={agentId} rule={dialog.rule} onClose={close} onDeleted={saved} />}
    </Card>
  );
}
