// RFC 4180 CSV for the dashboard's downloads (the Usage page, the Audit log): one header row, then
// one row per item with as many fields as the header. Text a spreadsheet would run as a formula
// (=, +, -, @, tab, CR first) is defused with a leading apostrophe (OWASP, "CSV injection"): an
// agent's name or a changed field is whatever someone typed.

export type Cell = string | number | boolean | null;

/** One CSV field: quoted when needed; text that a spreadsheet would run as a formula is defused. */
export function csvField(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A column: its header and its value for one item. */
export type Column<T> = readonly [header: string, value: (item: T) => Cell];

/** A table as CSV: the header, then a row per item, each with every column (rectangular by construction). */
export function toCsv<T>(columns: readonly Column<T>[], items: readonly T[]): string {
  const line = (cells: Cell[]) => cells.map(csvField).join(',');
  return [line(columns.map(([header]) => header)), ...items.map((item) => line(columns.map(([, value]) => value(item))))].map((l) => `${l}\r\n`).join('');
}

/** Saves `text` as a CSV file named `name` (in the browser). */
export function downloadCsv(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own reference by now; the address can go.
  setTimeout(() => URL.revokeObjectURL(url));
}
