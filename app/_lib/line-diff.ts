// A line-based text diff (the longest common subsequence of lines), for showing what changed
// between two versions of an agent's instructions or of a tool's JSON. Lines the two texts share
// at their start and end are matched first, so the table the LCS fills covers only the part in
// between; a middle too large for that table (more than MAX_CELLS line pairs) is shown as every
// old line removed, then every new line added: still right, only coarser.

export type DiffLine =
  | { type: 'same'; text: string; oldLine: number; newLine: number }
  | { type: 'removed'; text: string; oldLine: number }
  | { type: 'added'; text: string; newLine: number };

/** A run of unchanged lines folded away (see foldUnchanged). */
export interface DiffSkip {
  type: 'skip';
  count: number;
}

/** The most line pairs the LCS table covers (4 bytes each): 16 MB at most. */
export const MAX_CELLS = 4_000_000;

/** A text's lines: `\r\n` and `\n` both end one; empty text has none. */
export function linesOf(text: string | null): string[] {
  if (text === null || text === '') return [];
  return text.split(/\r?\n/);
}

/** The lines of `before` and `after` in order: each unchanged, removed (from `before`) or added (in `after`), with its line numbers (1-based). */
export function diffLines(before: string | null, after: string | null): DiffLine[] {
  const a = linesOf(before);
  const b = linesOf(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }

  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ type: 'same', text: a[i]!, oldLine: i + 1, newLine: i + 1 });
  middle(a, b, start, endA, endB, out);
  for (let i = endA, j = endB; i < a.length; i++, j++) out.push({ type: 'same', text: a[i]!, oldLine: i + 1, newLine: j + 1 });
  return out;
}

/** The diff of a[start, endA) and b[start, endB), appended to `out`. */
function middle(a: string[], b: string[], start: number, endA: number, endB: number, out: DiffLine[]): void {
  const n = endA - start;
  const m = endB - start;
  const removed = (i: number) => out.push({ type: 'removed', text: a[i]!, oldLine: i + 1 });
  const added = (j: number) => out.push({ type: 'added', text: b[j]!, newLine: j + 1 });
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > MAX_CELLS) {
    for (let i = start; i < endA; i++) removed(i);
    for (let j = start; j < endB; j++) added(j);
    return;
  }
  // lcs[i][j]: the longest common subsequence of a[start + i …] and b[start + j …].
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[start + i] === b[start + j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      out.push({ type: 'same', text: a[start + i]!, oldLine: start + i + 1, newLine: start + j + 1 });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      // Removals before additions where both keep the subsequence as long: "- old / + new".
      removed(start + i++);
    } else {
      added(start + j++);
    }
  }
  while (i < n) removed(start + i++);
  while (j < m) added(start + j++);
}

/** Whether any line changed. */
export const hasChanges = (lines: DiffLine[]) => lines.some((l) => l.type !== 'same');

/**
 * The diff with each run of unchanged lines longer than it needs folded into a skip, keeping
 * `context` lines next to each change (a fold of a single line keeps it: a skip saves nothing).
 */
export function foldUnchanged(lines: DiffLine[], context = 3): (DiffLine | DiffSkip)[] {
  const out: (DiffLine | DiffSkip)[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.type !== 'same') {
      out.push(lines[i++]!);
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end]!.type === 'same') end++;
    // Context kept after the change before the run, and before the change after it.
    const keepHead = i === 0 ? 0 : context;
    const keepTail = end === lines.length ? 0 : context;
    const hidden = end - i - keepHead - keepTail;
    if (hidden > 1) {
      out.push(...lines.slice(i, i + keepHead), { type: 'skip', count: hidden }, ...lines.slice(end - keepTail, end));
    } else {
      out.push(...lines.slice(i, end));
    }
    i = end;
  }
  return out;
}
