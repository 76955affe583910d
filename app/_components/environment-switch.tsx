'use client';

import type { DashboardEnvironment } from '@/app/_lib/environment';
import { useEnvironment } from './providers';

const OPTIONS: { value: DashboardEnvironment; label: string }[] = [
  { value: 'live', label: 'Live' },
  { value: 'test', label: 'Test' },
];

// A two-way segmented control; the choice is remembered (cookie) and reloads the data.
export function EnvironmentSwitch() {
  const { environment, setEnvironment } = useEnvironment();
  return (
    <div role="radiogroup" aria-label="Environment" className="inline-flex rounded-lg bg-slate-100 p-0.5 text-sm" data-testid="environment-switch">
      {OPTIONS.map((o) => {
        const selected = o.value === environment;
        const colours = selected
          ? o.value === 'test'
            ? 'bg-amber-400 text-amber-950 shadow-sm'
            : 'bg-white text-slate-900 shadow-sm'
          : 'text-slate-600 hover:text-slate-900';
        return (
          <button
            key={o.value}
            type="button"
            role="radio"
            aria-checked={selected}
            data-testid={`env-${o.value}`}
            onClick={() => setEnvironment(o.value)}
            className={`rounded-md px-3 py-1 font-medium transition-colors focus-visible:outline-2 focus-visible:outline-indigo-600 ${colours}`}
          >
            {o.label}
          </button>
        );
      })}
    </div>
  );
}
