'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { revealProblem } from '@/app/_lib/reveal';
import { draftName, draftOf, newScorerDraft, type ScorerDraft } from '@/app/_lib/scorers';
import type { EvalRule } from '@/app/_lib/types';
import { checkDrafts, ScorerBuilder } from '../experiments/scorer-builder';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, SelectField, TextField } from '../ui';

// An online scoring rule made or changed (docs/evals.md, "Online scoring"): its scorers (the
// experiments' builder), the share of the agent's ended runs it scores (as a percentage), and
// optionally an alert when the moving mean of one of its scorers falls below a line. Problems show
// on submit; the server's refusals with its message, on the field its `param` names or above.

type Field = 'sampleRate' | 'alertScorer' | 'alertMean' | 'alertWindow';
const TARGET: Record<Field, string> = { sampleRate: 'rule-sample', alertScorer: 'rule-alert-scorer', alertMean: 'rule-alert-mean', alertWindow: 'rule-alert-window' };
const PARAMS: Record<string, Field> = { sampleRate: 'sampleRate', 'alertBelow.scorer': 'alertScorer', 'alertBelow.mean': 'alertMean', 'alertBelow.window': 'alertWindow', alertBelow: 'alertScorer' };

const num = (text: string) => (text.trim() === '' ? NaN : Number(text));
/** A share as the field shows it: "10", "2.5". */
const percentText = (share: number) => String(Math.round(share * 10_000) / 100);

export function RuleDialog({ agentId, rule, onClose, onSaved }: { agentId: string; rule?: EvalRule; onClose: () => void; onSaved: () => void }) {
  const trpc = useTRPC();
  const create = useMutation(trpc.evalRules.create.mutationOptions());
  const update = useMutation(trpc.evalRules.update.mutationOptions());
  const mutation = rule ? update : create;
  const [drafts, setDrafts] = useState<ScorerDraft[]>(() => (rule ? rule.scorers.map(draftOf) : [newScorerDraft('contains')]));
  const [sample, setSample] = useState(rule ? percentText(rule.sampleRate) : '10');
  const [alerting, setAlerting] = useState(rule?.alertBelow != null);
  const [alertScorer, setAlertScorer] = useState(rule?.alertBelow?.scorer ?? '');
  const [alertMean, setAlertMean] = useState(rule?.alertBelow ? String(rule.alertBelow.mean) : '0.7');
  const [alertWindow, setAlertWindow] = useState(rule?.alertBelow ? String(rule.alertBelow.window) : '20');
  const [submitted, setSubmitted] = useState(false);

  const names = drafts.map(draftName);
  const scorer = names.includes(alertScorer) ? alertScorer : (names[0] ?? '');
  const checked = checkDrafts('rule-scorers', drafts);
  const rate = num(sample);
  const mean = num(alertMean);
  const windowN = num(alertWindow);
  const problems: Record<Field, string | null> = {
    sampleRate: rate >= 0 && rate <= 100 ? null : 'A percentage from 0 to 100.',
    alertScorer: null,
    alertMean: !alerting || (mean >= 0 && mean <= 1) ? null : 'A mean score from 0 to 1.',
    alertWindow: !alerting || (Number.isInteger(windowN) && windowN >= 1 && windowN <= 1000) ? null : 'A whole number of runs from 1 to 1,000.',
  };
  const param = apiErrorOf(mutation.error)?.param ?? '';
  const serverField = PARAMS[param] ?? null;
  const fieldError = (f: Field) => (submitted ? problems[f] : null) ?? (serverField === f ? errorMessage(mutation.error) : null);
  const formError = mutation.error && !serverField ? errorMessage(mutation.error) : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (mutation.isPending) return;
    setSubmitted(true);
    if (checked.first) return revealProblem(checked.first);
    const first = (Object.keys(problems) as Field[]).find((f) => problems[f]);
    if (first) return revealProblem(TARGET[first]);
    const alertBelow = alerting ? { scorer, mean, window: windowN } : null;
    const sampleRate = Math.round(rate * 100) / 10_000;
    const options = {
      onSuccess: onSaved,
      onError: (err: unknown) => {
        const f = PARAMS[apiErrorOf(err)?.param ?? ''];
        revealProblem(f ? TARGET[f] : 'rule-error');
      },
    };
    if (rule) update.mutate({ id: agentId, ruleId: rule.id, scorers: checked.scorers, sampleRate, alertBelow: alertBelow ?? (rule.alertBelow ? null : undefined) }, options);
    else create.mutate({ id: agentId, scorers: checked.scorers, sampleRate, ...(alertBelow ? { alertBelow } : {}) }, options);
  }

  return (
    <Modal
      title={rule ? 'Edit scoring rule' : 'New scoring rule'}
      description="Scores a sample of this agent’s runs after they end, without delaying them: the scores show on each execution."
      onClose={onClose}
      dismissible={!mutation.isPending}
      onSubmit={submit}
      size="lg"
      testId="rule-dialog"
      footer={<ModalActions label={rule ? 'Save rule' : 'Add rule'} onCancel={onClose} pending={mutation.isPending} testId="rule-submit" />}
    >
      <div className="space-y-5">
        {formError && (
          <Alert id="rule-error" tabIndex={-1} data-testid="rule-error">
            {formError}
          </Alert>
        )}
        <ScorerBuilder id="rule-scorers" drafts={drafts} onChange={setDrafts} problems={submitted ? checked.problems : {}} />
        <TextField
          id="rule-sample"
          label="Runs scored (%)"
          type="number"
          min={0}
          max={100}
          step="any"
          value={sample}
          onChange={(e) => setSample(e.target.value)}
          hint="The share of the agent’s ended runs to score: 100 scores every run. LLM judges run (and cost) once per scored run."
          error={fieldError('sampleRate')}
          className="sm:w-40"
          data-testid="rule-sample"
        />
        <fieldset className="space-y-3">
          <legend className="sr-only">Alert</legend>
          <label className="flex cursor-pointer items-start gap-2.5 text-sm text-slate-800">
            <input type="checkbox" checked={alerting} onChange={(e) => setAlerting(e.target.checked)} className="mt-0.5 accent-indigo-600" data-testid="rule-alert" />
            <span>
              Alert when the score drops
              <span className="block text-xs text-slate-500">
                Sends <code className="font-mono">eval.score_dropped</code> once when the moving mean falls below the line, and again only after it recovered.
              </span>
            </span>
          </label>
          {alerting && (
            <div className="grid gap-3 sm:grid-cols-3">
              <SelectField id="rule-alert-scorer" label="Scorer" value={scorer} onChange={(e) => setAlertScorer(e.target.value)} error={fieldError('alertScorer')} data-testid="rule-alert-scorer">
                {names.map((n, i) => (
                  <option key={`${n}-${i}`} value={n}>
                    {n}
                  </option>
                ))}
              </SelectField>
              <TextField id="rule-alert-mean" label="Below (0–1)" type="number" min={0} max={1} step="0.05" value={alertMean} onChange={(e) => setAlertMean(e.target.value)} error={fieldError('alertMean')} data-testid="rule-alert-mean" />
              <TextField
                id="rule-alert-window"
                label="Over the last"
                type="number"
                min={1}
                max={1000}
                step={1}
                value={alertWindow}
                onChange={(e) => setAlertWindow(e.target.value)}
                hint="scored runs"
                error={fieldError('alertWindow')}
                data-testid="rule-alert-window"
              />
            </div>
          )}
        </fieldset>
      </div>
    </Modal>
  );
}
