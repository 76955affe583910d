import type { ReactNode } from 'react';
import type { FieldRow } from './schema';

// Inline `code` in descriptions written with backticks.
export function RichText({ text }: { text: string }) {
  const parts = text.split(/(`[^`]+`)/g);
  return (
    <>
      {parts.map((p, i) =>
        p.startsWith('`') && p.endsWith('`') && p.length > 1 ? (
          <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.85em] text-slate-800">
            {p.slice(1, -1)}
          </code>
        ) : (
          p
        ),
      )}
    </>
  );
}

export function FieldsTable({ rows, empty }: { rows: FieldRow[]; empty?: ReactNode }) {
  if (rows.length === 0) return <p className="text-sm text-slate-500">{empty ?? 'No fields.'}</p>;
  return (
    <div className="overflow-x-auto rounded-lg ring-1 ring-slate-200">
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
          <tr>
            <th scope="col" className="px-3 py-2">
              Field
            </th>
            <th scope="col" className="px-3 py-2">
              Type
            </th>
            <th scope="col" className="px-3 py-2">
              Description
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {rows.map((r) => (
            <tr key={r.name} className="align-top">
              <td className="px-3 py-2 whitespace-nowrap">
                <code className="font-mono text-[13px] font-medium text-slate-900">{r.name}</code>
                <div className={`mt-0.5 text-xs ${r.required ? 'font-medium text-rose-600' : 'text-slate-400'}`}>
                  {r.required ? 'required' : 'optional'}
                </div>
              </td>
              <td className="min-w-32 px-3 py-2">
                <code className="font-mono text-xs break-words text-indigo-700">{r.type}</code>
              </td>
              <td className="px-3 py-2 text-slate-700">
                {r.description && (
                  <p>
                    <RichText text={r.description} />
                  </p>
                )}
                {r.notes.length > 0 && (
                  <ul className="mt-1 space-y-0.5 text-xs text-slate-500">
                    {r.notes.map((n) => (
                      <li key={n}>{n}</li>
                    ))}
                  </ul>
                )}
                {!r.description && r.notes.length === 0 && <span className="text-slate-400">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CodeBlock({ children, label }: { children: string; label?: string }) {
  return (
    <div className="overflow-hidden rounded-lg bg-slate-900 ring-1 ring-slate-800">
      {label && <div className="border-b border-slate-700/70 px-4 py-1.5 text-xs font-medium text-slate-400">{label}</div>}
      <pre className="overflow-x-auto p-4 font-mono text-[13px] leading-relaxed text-slate-100">
        <code>{children}</code>
      </pre>
    </div>
  );
}
