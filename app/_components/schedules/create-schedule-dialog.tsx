'use client';

import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { describeCron } from '@/app/_lib/cron';
import { apiErrorOf, errorMessage } from '@/app/_lib/errors';
import { browserZone, formatDateTime } from '@/app/_lib/dates';
import type { Schedule } from '@/app/_lib/types';
import { MAX_SCHEDULE_INPUT } from '@/server/modules/schedules/schemas';
import { Modal, ModalActions } from '../modal';
import { useTRPC } from '../providers';
import { Alert, SelectField, Spinner, TextAreaField, TextField } from '../ui';

// A new schedule of an agent: a cron (with presets) read in a time zone (the browser's by
// default), the message each run sends, and what an occurrence does while the previous run is
// still going. The next five runs show as the user types, computed by the server with the rules a
// save will apply, and written in the chosen zone.

const PRESETS = [
  { label: 'Every 15 minutes', cron: '*/15 * * * *' },
  { label: 'Every hour', cron: '0 * * * *' },
  { label: 'Every day at 09:00', cron: '0 9 * * *' },
  { label: 'Weekdays at 09:00', cron: '0 9 * * MON-FRI' },
  { label: 'Mondays at 08:30', cron: '30 8 * * MON' },
  { label: 'First of the month at 06:00', cron: '0 6 1 * *' },
];

const zones = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
})();

/** `value`, once it has not changed for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function CreateScheduleDialog({ agentId, onClose, onCreated }: { agentId: string; onClose: () => void; onCreated: (s: Schedule) => void }) {
  const trpc = useTRPC();
  const [cron, setCron] = useState('0 9 * * MON-FRI');
  const [timezone, setTimezone] = useState(browserZone);
  const [input, setInput] = useState('');
  const [overlap, setOverlap] = useState<'skip' | 'enqueue'>('skip');
  const create = useMutation(trpc.schedules.create.mutationOptions());

  const asked = useSettled(useMemo(() => ({ cron: cron.trim(), timezone: timezone.trim() }), [cron, timezone]), 250);
  const preview = useQuery({
    ...trpc.schedules.preview.queryOptions(asked),
    enabled: asked.cron !== '' && asked.timezone !== '',
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

  const failed = apiErrorOf(create.error);
  const errorOn = (param: string) => (failed?.param === param ? errorMessage(create.error) : null);
  const previewError = preview.data && !preview.data.ok ? preview.data : null;
  // What is shown is for other values than those typed (still settling, or being fetched).
  const stale = preview.isFetching || asked.cron !== cron.trim() || asked.timezone !== timezone.trim();

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ agentId, cron, timezone, input, overlap }, { onSuccess: onCreated });
  }

  return (
    <Modal
      title="New schedule"
      description="Runs this agent on a cron, in the time zone you choose. Each run is an execution you can follow like any other."
      onClose={onClose}
      dismissible={!create.isPending}
      onSubmit={submit}
      testId="create-schedule-dialog"
      size="lg"
      footer={<ModalActions label="Create schedule" onCancel={onClose} pending={create.isPending} testId="create-schedule-submit" />}
    >
      <div className="space-y-5">
        {failed && !['cron', 'timezone', 'input'].includes(failed.param ?? '') && <Alert data-testid="create-schedule-error">{errorMessage(create.error)}</Alert>}
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            id="schedule-preset"
            label="Preset"
            value={PRESETS.find((p) => p.cron === cron.trim())?.cron ?? ''}
            onChange={(e) => e.target.value && setCron(e.target.value)}
            data-testid="schedule-preset"
          >
            <option value="">Custom</option>
            {PRESETS.map((p) => (
              <option key={p.cron} value={p.cron}>
                {p.label}
              </option>
            ))}
          </SelectField>
          <TextField
            id="schedule-cron"
            label="Cron"
            value={cron}
            onChange={(e) => setCron(e.target.value)}
            hint="minute hour day-of-month month day-of-week"
            className="font-mono"
            maxLength={200}
            spellCheck={false}
            autoComplete="off"
            required
            error={errorOn('cron') ?? (previewError?.param === 'cron' ? previewError.message : null)}
            data-testid="schedule-cron"
          />
        </div>
        <TextField
          id="schedule-timezone"
          label="Time zone"
          value={timezone}
          onChange={(e) => setTimezone(e.target.value)}
          list="schedule-timezones"
          maxLength={100}
          spellCheck={false}
          autoComplete="off"
          required
          hint="An IANA zone. On daylight-saving days a daily schedule still runs exactly once."
          error={errorOn('timezone') ?? (previewError?.param === 'timezone' ? previewError.message : null)}
          data-testid="schedule-timezone"
        />
        <datalist id="schedule-timezones">
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        <div
          className={`rounded-md bg-slate-50 px-3 py-2.5 ring-1 ring-slate-200 transition-opacity ${stale ? 'opacity-60' : ''}`}
          data-testid="schedule-preview"
          data-stale={stale || undefined}
          aria-live="polite"
        >
          <p className="flex items-center gap-2 text-xs font-medium text-slate-700">
            Next runs {preview.data?.ok && <span className="font-normal text-slate-500">({preview.data.timezone})</span>}
            {preview.isFetching && <Spinner className="size-3 text-slate-400" />}
          </p>
          {preview.data?.ok && describeCron(asked.cron) && (
            <p className="mt-1 text-sm text-slate-900" data-testid="schedule-preview-words">
              {describeCron(asked.cron)}
            </p>
          )}
          {preview.data?.ok ? (
            <ol className="mt-1.5 space-y-0.5 font-mono text-xs text-slate-800">
              {preview.data.runs.map((run) => (
                <li key={run} data-testid="schedule-preview-run">
                  {formatDateTime(run, { timeZone: preview.data.ok ? preview.data.timezone : 'UTC' })}
                </li>
              ))}
            </ol>
          ) : (
            <p className="mt-1 text-xs text-slate-500">{previewError ? 'Fix the cron or time zone to see when it runs.' : 'Enter a cron and a time zone.'}</p>
          )}
        </div>
        <TextAreaField
          id="schedule-input"
          label="Message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="e.g. Summarise yesterday’s orders."
          hint="Sent to the agent at every run, each in a new conversation."
          maxLength={MAX_SCHEDULE_INPUT}
          required
          error={errorOn('input')}
          data-testid="schedule-input"
        />
        <SelectField id="schedule-overlap" label="If the previous run is still going" value={overlap} onChange={(e) => setOverlap(e.target.value as 'skip' | 'enqueue')} data-testid="schedule-overlap">
          <option value="skip">Skip this run</option>
          <option value="enqueue">Queue it to run after the previous one</option>
        </SelectField>
      </div>
    </Modal>
  );
}
