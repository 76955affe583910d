import { EVENT_DESCRIPTIONS, EVENT_TYPES } from '@/app/_lib/event-types';

// The event types a webhook receives: "All events" (`*`, future types included) or a choice of
// types. With "All events" ticked the types show as included and cannot be unticked one by one.

export function EventsField({ value, onChange, error }: { value: string[]; onChange: (next: string[]) => void; error: string | null }) {
  const all = value.includes('*');
  const toggle = (type: string, on: boolean) => onChange(on ? [...value, type] : value.filter((t) => t !== type));

  return (
    <fieldset aria-describedby={error ? 'events-error' : undefined}>
      <legend className="text-sm font-medium text-slate-800">Events to send</legend>
      <p className="mt-0.5 text-xs text-slate-500">The execution events are ticked to start with: change them to what this endpoint needs. You can send it a test event at any time.</p>
      <label className={`mt-2 flex cursor-pointer items-start gap-3 rounded-lg p-3 ring-1 ${all ? 'bg-indigo-50 ring-indigo-500' : 'ring-slate-200 hover:bg-slate-50'}`}>
        <input
          type="checkbox"
          checked={all}
          onChange={(e) => onChange(e.target.checked ? ['*'] : [])}
          className="mt-0.5 size-4 accent-indigo-600"
          data-testid="event-all"
        />
        <span className="min-w-0">
          <span className="block text-sm font-medium text-slate-900">
            All events <code className="font-mono text-xs text-slate-500">*</code>
          </span>
          <span className="block text-xs text-slate-500">Every type, including ones added later.</span>
        </span>
      </label>
      <div className="mt-2 grid rounded-lg ring-1 ring-slate-200 sm:grid-cols-2">
        {EVENT_TYPES.map((type) => (
          <label
            key={type}
            className={`flex items-start gap-3 border-slate-100 px-3 py-2.5 max-sm:border-b max-sm:last:border-b-0 sm:nth-[n+3]:border-t ${all ? 'cursor-not-allowed opacity-60' : 'cursor-pointer hover:bg-slate-50'}`}
          >
            <input
              type="checkbox"
              name="events"
              value={type}
              checked={all || value.includes(type)}
              disabled={all}
              onChange={(e) => toggle(type, e.target.checked)}
              className="mt-0.5 size-4 accent-indigo-600"
              data-testid={`event-${type}`}
            />
            <span className="min-w-0">
              <span className="block font-mono text-sm break-all text-slate-900">{type}</span>
              <span className="block text-xs text-slate-500">{EVENT_DESCRIPTIONS[type]}</span>
            </span>
          </label>
        ))}
      </div>
      {error && (
        <p id="events-error" className="mt-1.5 text-xs text-red-600">
          {error}
        </p>
      )}
    </fieldset>
  );
}
