// Datasets' items for people (server/modules/evals/dataset-schemas.ts): how an expected answer —
// a text, a JSON object or list, or none — is shown, and how the item dialogs read what was typed
// into the expected field (its "JSON" switch on or off).

export type ExpectedKind = 'none' | 'text' | 'json';

/** What an item's `expected` is: none, a text, or JSON (an object or a list). */
export function expectedKind(value: unknown): ExpectedKind {
  if (value === null || value === undefined) return 'none';
  return typeof value === 'string' ? 'text' : 'json';
}

/** An object or list as one line of JSON (what an item's row shows). */
export const compactJson = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** An object or list as indented JSON (what "Show all" and the edit dialog show). */
export const prettyJson = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'null';

/** How much of a value a row shows before "Show all": characters, and lines of a text. */
export const CLIP = { chars: 280, lines: 6 } as const;

/**
 * The start of `text` a row shows: at most `chars` characters and `lines` lines, cut at a space
 * near the end when there is one (never in the middle of a word that fits), with `cut` saying
 * whether anything was left out.
 */
export function clip(text: string, { chars, lines }: { chars: number; lines: number } = CLIP): { shown: string; cut: boolean } {
  let end = text.length;
  let newlines = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\n' && ++newlines === lines) {
      end = i;
      break;
    }
  }
  end = Math.min(end, chars);
  if (end >= text.length) return { shown: text, cut: false };
  const space = text.lastIndexOf(' ', end);
  const at = space > end * 0.75 ? space : end;
  return { shown: text.slice(0, at).trimEnd(), cut: true };
}

/** The expected field as the dialogs hold it: its text, and whether it is read as JSON. */
export interface ExpectedDraft {
  text: string;
  json: boolean;
}

/** The field's starting state for an item's `expected` (or an execution's output): JSON indented, a text as it is. */
export function expectedDraft(value: unknown): ExpectedDraft {
  const kind = expectedKind(value);
  if (kind === 'none') return { text: '', json: false };
  if (kind === 'text') return { text: value as string, json: false };
  return { text: prettyJson(value), json: true };
}

export type ParsedExpected = { ok: true; value: string | Record<string, unknown> | unknown[] | null } | { ok: false; message: string };

/**
 * What the expected field holds: null when it is blank (no expected answer), the text as typed
 * with JSON off, or with JSON on the object or list it parses to — else a message saying what is
 * wrong (it does not parse, or it is a number, true/false, null or a quoted string).
 */
export function parseExpected({ text, json }: ExpectedDraft): ParsedExpected {
  if (!text.trim()) return { ok: true, value: null };
  if (!json) return { ok: true, value: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, message: `This is not valid JSON: ${reason}. Fix it, or turn JSON off to save it as text.` };
  }
  if (value === null || typeof value !== 'object') {
    return { ok: false, message: 'As JSON, the expected answer is an object {…} or a list […]. For a text answer, turn JSON off.' };
  }
  return { ok: true, value: value as Record<string, unknown> | unknown[] };
}

/** "1 item", "1,234 items". */
export const itemCount = (n: number): string => `${new Intl.NumberFormat('en-US').format(n)} ${n === 1 ? 'item' : 'items'}`;
