import Link from 'next/link';
import type { ButtonHTMLAttributes, ComponentProps, InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';

// Small shared building blocks, so every page has the same spacing, colours and focus rings.

const cx = (...parts: (string | false | null | undefined)[]) => parts.filter(Boolean).join(' ');

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost' | 'dangerGhost';

const VARIANTS: Record<Variant, string> = {
  primary: 'bg-indigo-600 text-white shadow-sm hover:bg-indigo-500 disabled:bg-indigo-300',
  secondary: 'bg-white text-slate-700 shadow-sm ring-1 ring-inset ring-slate-300 hover:bg-slate-50 disabled:text-slate-400',
  danger: 'bg-red-600 text-white shadow-sm hover:bg-red-500 disabled:bg-red-300',
  ghost: 'text-slate-600 hover:bg-slate-100 hover:text-slate-900 disabled:text-slate-400',
  dangerGhost: 'text-red-600 hover:bg-red-50 hover:text-red-700 disabled:text-red-300',
};

const BASE =
  'inline-flex items-center justify-center gap-2 rounded-md px-3.5 py-2 text-sm font-semibold transition-colors ' +
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed';

export function Button({ variant = 'primary', className, type = 'button', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return <button type={type} className={cx(BASE, VARIANTS[variant], className)} {...props} />;
}

export function ButtonLink({ variant = 'primary', className, ...props }: ComponentProps<typeof Link> & { variant?: Variant }) {
  return <Link className={cx(BASE, VARIANTS[variant], className)} {...props} />;
}

type Tone = 'slate' | 'indigo' | 'violet' | 'amber' | 'green' | 'red';

const TONES: Record<Tone, string> = {
  slate: 'bg-slate-100 text-slate-700 ring-slate-500/20',
  indigo: 'bg-indigo-50 text-indigo-700 ring-indigo-600/20',
  violet: 'bg-violet-50 text-violet-700 ring-violet-600/20',
  amber: 'bg-amber-100 text-amber-800 ring-amber-600/30',
  green: 'bg-emerald-50 text-emerald-700 ring-emerald-600/20',
  red: 'bg-red-50 text-red-700 ring-red-600/20',
};

export function Badge({ tone = 'slate', className, children, ...props }: ComponentProps<'span'> & { tone?: Tone }) {
  return (
    <span
      className={cx('inline-flex items-center rounded-md px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset', TONES[tone], className)}
      {...props}
    >
      {children}
    </span>
  );
}

export function Spinner({ className }: { className?: string }) {
  return (
    <span
      aria-hidden
      className={cx('inline-block size-4 animate-spin rounded-full border-2 border-current border-r-transparent', className)}
    />
  );
}

export function Alert({ tone = 'red', children, ...props }: ComponentProps<'div'> & { tone?: 'red' | 'amber' }) {
  const colours = tone === 'red' ? 'border-red-200 bg-red-50 text-red-800' : 'border-amber-200 bg-amber-50 text-amber-900';
  return (
    <div role="alert" className={cx('rounded-md border px-3 py-2 text-sm', colours)} {...props}>
      {children}
    </div>
  );
}

const INPUT =
  'block w-full rounded-md border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 ' +
  'outline-none placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-indigo-600 aria-invalid:ring-red-500';

type FieldProps = { id: string; label: ReactNode; hint?: ReactNode; error?: string | null };

/** The label, hint and error around a form control, and the control's own accessibility attributes. */
function Field({ id, label, hint, error, children }: FieldProps & { children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      {children}
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-xs text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}

const controlProps = ({ id, hint, error }: FieldProps) => ({
  id,
  'aria-invalid': error ? true : undefined,
  'aria-describedby': [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined,
});

export function TextField({ label, hint, error, id, className, ...props }: InputHTMLAttributes<HTMLInputElement> & FieldProps) {
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <input {...controlProps({ id, label, hint, error })} className={cx(INPUT, className)} {...props} />
    </Field>
  );
}

export function TextAreaField({ label, hint, error, id, className, ...props }: TextareaHTMLAttributes<HTMLTextAreaElement> & FieldProps) {
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <textarea {...controlProps({ id, label, hint, error })} className={cx(INPUT, 'min-h-20 resize-y', className)} {...props} />
    </Field>
  );
}

export function SelectField({ label, hint, error, id, className, ...props }: SelectHTMLAttributes<HTMLSelectElement> & FieldProps) {
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <select {...controlProps({ id, label, hint, error })} className={cx(INPUT, 'pr-8', className)} {...props} />
    </Field>
  );
}

/** A checkbox drawn as an on/off switch (still a checkbox to the keyboard and to forms; give it `role="switch"` for screen readers). */
export const SWITCH =
  'relative mt-0.5 h-5 w-9 shrink-0 cursor-pointer appearance-none rounded-full bg-slate-300 transition-colors checked:bg-indigo-600 ' +
  'before:absolute before:top-0.5 before:left-0.5 before:size-4 before:rounded-full before:bg-white before:shadow-sm before:transition-transform checked:before:translate-x-4 ' +
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';

export function Card({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cx('rounded-xl bg-white shadow-sm ring-1 ring-slate-200', className)} {...props} />;
}

/** `compact`: the mark alone below the sm breakpoint (the name stays for screen readers). */
export function Logo({ className, compact = false }: { className?: string; compact?: boolean }) {
  return (
    <span className={cx('inline-flex items-center gap-2 font-semibold whitespace-nowrap text-slate-900', className)}>
      <span aria-hidden className="grid size-7 shrink-0 place-items-center rounded-lg bg-indigo-600 text-xs font-bold text-white">
        AA
      </span>
      <span className={compact ? 'max-sm:sr-only' : undefined}>Agent Automation</span>
    </span>
  );
}

/** An object's metadata as `key: value` lines. */
export function MetadataList({ metadata }: { metadata: Record<string, string> }) {
  return (
    <ul className="space-y-0.5 font-mono text-xs">
      {Object.entries(metadata).map(([k, v]) => (
        <li key={k} className="break-all">
          <span className="text-slate-500">{k}:</span> {v}
        </li>
      ))}
    </ul>
  );
}

export { cx };
