'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { useForm, useWatch, type FieldErrors, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { PERIOD_LABEL, PERIOD_RULE } from '@/app/_lib/budgets';
import type { DashboardEnvironment } from '@/app/_lib/environment';
import { FORM_ERROR, firstWithError, messageOf, showServerError } from '@/app/_lib/forms';
import { revealProblem } from '@/app/_lib/reveal';
import type { Budget } from '@/app/_lib/types';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, SelectField, TextField } from '../ui';
import { budgetFormOf, budgetMessage, createFormSchema, editFormSchema, FIELDS, newBudgetForm, placeOf, type BudgetForm, type FieldName } from './budget-form';
import { TargetLabel, type Names } from './target-label';
import { TargetField } from './target-field';

// A new budget, or changes to one: its name, limit (USD or tokens), thresholds and action. The
// target, period and zone of an existing budget cannot change (spend already counted belongs to
// its period): the dialog shows them, and says to create another budget instead.

const zones = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
})();

const ACTIONS = [
  { value: 'block', label: 'Block runs', detail: 'Once spent, new runs of its target are refused and running ones stop before their next model call.' },
  { value: 'notify', label: 'Notify only', detail: 'Sends alerts (webhooks, event log); never stops a run.' },
] as const;

type Output = z.output<typeof createFormSchema> | z.output<typeof editFormSchema>;

const targetOf = (name: FieldName) => FIELDS.find((f) => f.name === name)!.target;
const FIELD_NAMES = FIELDS.map((f) => f.name);

export function BudgetDialog({
  budget,
  environment,
  names,
  onClose,
  onSaved,
}: {
  /** The budget to edit; none to create one. */
  budget?: Budget;
  environment: DashboardEnvironment;
  names: Names;
  onClose: () => void;
  onSaved: (budget: Budget) => void;
}) {
  const trpc = useTRPC();
  const create = useMutation(trpc.budgets.create.mutationOptions());
  const update = useMutation(trpc.budgets.update.mutationOptions());
  const pending = create.isPending || update.isPending;
  const editing = budget !== undefined;

  const resolver: Resolver<BudgetForm, unknown, Output> = editing ? zodResolver(editFormSchema, { error: budgetMessage }) : zodResolver(createFormSchema, { error: budgetMessage });
  const { register, control, handleSubmit, setError, setValue, formState } = useForm<BudgetForm, unknown, Output>({
    defaultValues: budget ? budgetFormOf(budget) : newBudgetForm(),
    resolver,
    shouldFocusError: false,
  });
  const [targetType, unit, period] = useWatch({ control, name: ['targetType', 'unit', 'period'] });
  /** A field's message: its own, or one the server schema put on the API's name for it. */
  const fieldError = (name: FieldName) => {
    const params = FIELDS.find((f) => f.name === name)!.params;
    return [name, ...params, ...params.flatMap((p) => [`${p}.usd`, `${p}.tokens`, `${p}.id`])].map((n) => messageOf(formState.errors, n)).find(Boolean) ?? null;
  };
  const reveal = (errors: FieldErrors<BudgetForm>) => {
    const first = firstWithError(errors, FIELD_NAMES);
    revealProblem(first ? targetOf(first as FieldName) : null);
  };

  const onSubmit = handleSubmit(async (input) => {
    try {
      const saved = budget ? await update.mutateAsync({ id: budget.id, ...(input as z.output<typeof editFormSchema>) }) : await create.mutateAsync(input as z.output<typeof createFormSchema>);
      onSaved(saved);
    } catch (err) {
      const field = showServerError(err, setError, placeOf) as FieldName | null;
      revealProblem(field ? targetOf(field) : null);
    }
  }, reveal);
  const formError = messageOf(formState.errors, FORM_ERROR);
  const mode = environment === 'test' ? 'test' : 'live';

  return (
    <Modal
      title={editing ? `Edit “${budget.name}”` : 'New budget'}
      description={
        editing
          ? 'A new limit judges the current period again: raised above what was spent, the budget is within its limit again.'
          : `Caps what ${mode}-mode runs spend per period. Its first period counts the runs that already finished in it.`
      }
      onClose={onClose}
      dismissible={!pending}
      onSubmit={(e) => void onSubmit(e)}
      testId="budget-dialog"
      size="lg"
      footer={<ModalActions label={editing ? 'Save changes' : 'Create budget'} onCancel={onClose} pending={pending} testId="budget-submit" />}
    >
      <div className="space-y-6">
        {formError && <Alert data-testid="budget-error">{formError}</Alert>}
        <TextField id="budget-name" label="Name" placeholder="e.g. Monthly cap" {...register('name')} maxLength={100} required autoFocus error={fieldError('name')} />

        {budget ? (
          <div className="rounded-md bg-slate-50 px-3 py-2.5 text-sm ring-1 ring-slate-200" data-testid="budget-fixed">
            <p className="text-slate-800">
              Counts <TargetLabel target={budget.target} names={names} plain /> · {PERIOD_LABEL[budget.period]}
              {budget.period !== 'total' && <> in {budget.timezone}</>}
            </p>
            <p className="mt-0.5 text-xs text-slate-500">What a budget counts, its period and its zone cannot change: create another budget for that.</p>
          </div>
        ) : (
          <TargetField
            register={register}
            type={targetType}
            environment={environment}
            error={fieldError('targetId')}
            onTypeChange={() => setValue('targetId', '', { shouldValidate: formState.isSubmitted })}
          />
        )}

        <div className="grid gap-4 sm:grid-cols-[10rem_1fr]">
          <SelectField id="budget-unit" label="Limit in" {...register('unit')} data-testid="budget-unit">
            <option value="usd">USD</option>
            <option value="tokens">Tokens</option>
          </SelectField>
          <TextField
            id="budget-amount"
            label={unit === 'usd' ? 'Limit (USD)' : 'Limit (tokens)'}
            inputMode={unit === 'usd' ? 'decimal' : 'numeric'}
            placeholder={unit === 'usd' ? '25.00' : '1,000,000'}
            {...register('amount')}
            autoComplete="off"
            required
            hint={
              unit === 'usd'
                ? environment === 'test'
                  ? 'Test runs cost $0: in test mode a USD budget never fills. Use tokens to try one out.'
                  : 'Priced from the operator’s price table. Runs on the sandbox model cost $0.'
                : 'Input and output tokens together.'
            }
            error={fieldError('amount')}
            data-testid="budget-amount"
          />
        </div>

        {!budget && (
          <div className="grid gap-4 sm:grid-cols-2">
            <SelectField id="budget-period" label="Period" {...register('period')} hint={PERIOD_RULE[period]} data-testid="budget-period">
              {(['day', 'week', 'month', 'total'] as const).map((p) => (
                <option key={p} value={p}>
                  {p === 'total' ? 'Total (never resets)' : PERIOD_LABEL[p]}
                </option>
              ))}
            </SelectField>
            {period !== 'total' && (
              <>
                <TextField
                  id="budget-timezone"
                  label="Time zone"
                  {...register('timezone')}
                  list="budget-timezones"
                  maxLength={100}
                  spellCheck={false}
                  autoComplete="off"
                  required
                  hint="An IANA zone: periods start at its midnight."
                  error={fieldError('timezone')}
                  data-testid="budget-timezone"
                />
                <datalist id="budget-timezones">
                  {zones.map((z) => (
                    <option key={z} value={z} />
                  ))}
                </datalist>
              </>
            )}
          </div>
        )}

        <fieldset>
          <legend className="text-sm font-medium text-slate-800">When the limit is reached</legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {ACTIONS.map((a) => (
              <label key={a.value} className="flex cursor-pointer items-start gap-2.5 rounded-lg p-3 ring-1 ring-slate-200 hover:bg-slate-50 has-checked:bg-indigo-50 has-checked:ring-indigo-500">
                <input type="radio" value={a.value} {...register('action')} className="mt-0.5 accent-indigo-600" data-testid={`budget-action-${a.value}`} />
                <span className="min-w-0">
                  <span className="block text-sm font-medium text-slate-900">{a.label}</span>
                  <span className="block text-xs text-slate-500">{a.detail}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>

        <TextField
          id="budget-alerts"
          label="Alert at (% of the limit)"
          placeholder="80, 100"
          {...register('alertAt')}
          autoComplete="off"
          hint="Each sends budget.threshold_reached once per period (up to 10, 1–1000). Leave empty for none: reaching the limit still sends budget.exceeded."
          error={fieldError('alertAt')}
          data-testid="budget-alerts"
        />
      </div>
    </Modal>
  );
}
