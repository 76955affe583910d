'use client';

import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import type { ModelProvider } from '@/app/_lib/types';
import { useEnvironment, useTRPC } from '../providers';

// The model as `provider/model`: a provider picker (providers this server has no credentials for
// are listed, disabled, with the variable that enables them) and a free-text model id with the
// usual ids suggested.

const LABELS: Record<ModelProvider['id'], string> = {
  sandbox: 'Sandbox (offline)',
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  'openai-compatible': 'OpenAI-compatible',
};
const ORDER = Object.keys(LABELS) as ModelProvider['id'][];

const CONTROL =
  'block w-full rounded-md border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600 aria-invalid:ring-red-500';

function split(model: string): { provider: string; modelId: string } {
  const slash = model.indexOf('/');
  return slash < 0 ? { provider: model, modelId: '' } : { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
}

export function ModelField({ value, onChange, error }: { value: string; onChange: (model: string) => void; error: string | null }) {
  const trpc = useTRPC();
  const { environment } = useEnvironment();
  const providers = useQuery({ ...trpc.models.providers.queryOptions(), staleTime: 5 * 60_000 });
  const listId = useId();
  const { provider, modelId } = split(value);
  const info = providers.data?.providers.find((p) => p.id === provider);
  const missing = providers.data?.providers.filter((p) => !p.configured) ?? [];
  const examples = info?.examples.map((e) => split(e).modelId) ?? [];

  function pickProvider(next: string) {
    const first = providers.data?.providers.find((p) => p.id === next)?.examples[0];
    onChange(first ?? `${next}/`);
  }

  const hintId = 'agent-model-hint';
  return (
    <fieldset className="space-y-1.5" aria-describedby={hintId}>
      <legend className="text-sm font-medium text-slate-800">Model</legend>
      <div className="grid gap-2 sm:grid-cols-[minmax(0,14rem)_minmax(0,1fr)]">
        <label className="sr-only" htmlFor="agent-provider">
          Provider
        </label>
        <select id="agent-provider" value={provider} onChange={(e) => pickProvider(e.target.value)} className={`${CONTROL} pr-8`} data-testid="agent-provider">
          {!ORDER.includes(provider as ModelProvider['id']) && <option value={provider}>{provider || 'Choose a provider'}</option>}
          {ORDER.map((id) => {
            const p = providers.data?.providers.find((x) => x.id === id);
            const off = p ? !p.configured : false;
            return (
              <option key={id} value={id} disabled={off && id !== provider}>
                {LABELS[id]}
                {off ? ' (not configured)' : ''}
              </option>
            );
          })}
        </select>
        <div className={`flex min-w-0 items-stretch rounded-md bg-white shadow-sm ring-1 ring-inset focus-within:ring-2 focus-within:ring-indigo-600 ${error ? 'ring-red-500' : 'ring-slate-300'}`}>
          <span aria-hidden className="flex items-center border-r border-slate-200 px-2.5 font-mono text-xs text-slate-500 select-none">
            {provider}/
          </span>
          <label className="sr-only" htmlFor="agent-model">
            Model id
          </label>
          <input
            id="agent-model"
            list={listId}
            value={modelId}
            onChange={(e) => onChange(`${provider}/${e.target.value.trim()}`)}
            placeholder={examples[0] ?? 'model-id'}
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'agent-model-error' : undefined}
            className="block w-full min-w-0 rounded-r-md border-0 bg-transparent px-3 py-2 font-mono text-sm text-slate-900 outline-none placeholder:text-slate-400"
            data-testid="agent-model-input"
          />
          <datalist id={listId}>
            {examples.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
        </div>
      </div>
      {error && (
        <p id="agent-model-error" className="text-xs text-red-600">
          {error}
        </p>
      )}
      <div id={hintId} className="space-y-0.5 text-xs text-slate-500">
        {provider === 'sandbox' && (
          <p>
            <code className="font-mono">echo</code> answers at once, <code className="font-mono">slow</code> streams word by word; both call a tool
            when your message names it.
          </p>
        )}
        {missing.length > 0 && (
          <p>
            Not configured on this server:{' '}
            {missing.map((p, i) => (
              <span key={p.id}>
                {i > 0 && ', '}
                {LABELS[p.id]} (set <code className="font-mono">{p.enabledBy}</code>)
              </span>
            ))}
            .
          </p>
        )}
        {environment === 'test' && providers.data && !providers.data.testModeRealModels && <p>Test-mode runs always use the sandbox model.</p>}
      </div>
    </fieldset>
  );
}
