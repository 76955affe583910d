import { get, type FieldErrors, type FieldValues, type Path, type UseFormSetError } from 'react-hook-form';
import { apiErrorOf, errorMessage } from './errors';

// What the dashboard's forms share. Each form validates with the server's own zod schema (the
// request's, behind a few transforms from what the user typed: react-hook-form's zodResolver),
// with messages of its own for people where the schema has none. What only the server can check
// comes back as an API error: with a `param`, the message shows on that field; without one (or a
// param the form has no field for), at the top of the form (`root.server`).

/** The form-level error of a failed submit (what `showServerError` sets when no field fits). */
export const FORM_ERROR = 'root.server';

/** The message of the field `name` (a dotted path), or null. */
export function messageOf(errors: FieldErrors, name: string): string | null {
  const error = get(errors, name) as { message?: unknown; root?: { message?: unknown } } | undefined;
  const message = error?.message ?? error?.root?.message;
  return typeof message === 'string' && message ? message : null;
}

/** The first of `names` (in the form's order, top to bottom) that has an error, or null. */
export const firstWithError = (errors: FieldErrors, names: readonly string[]): string | null => names.find((n) => messageOf(errors, n) !== null) ?? null;

/**
 * Shows a failed call's message: on the field its `param` names (`place` turns a param into a
 * field name, or null when the form has none for it), else as the form's error. Returns the
 * field, or null for the form.
 */
export function showServerError<T extends FieldValues>(err: unknown, setError: UseFormSetError<T>, place: (param: string) => string | null): string | null {
  const param = apiErrorOf(err)?.param ?? null;
  const field = param ? place(param) : null;
  setError((field ?? FORM_ERROR) as Path<T> | `root.${string}`, { type: 'server', message: errorMessage(err) });
  return field;
}
