// Every time the dashboard writes, one way (issue 44, item 10; docs/decisions.md, "Dates in the
// dashboard"): absolute as "Dec 5, 2026, 22:36 CET" — always with its zone named, the viewer's
// unless the thing has a zone of its own (a schedule's runs, a budget's reset: theirs) — and
// relative where a glance is what helps ("3 h ago", "in 3 h"), with the absolute one beside it or
// on hover. 24-hour time, as the schedules' crons are written. `now` is passed in so rendering
// stays pure.

const formats = new Map<string, Intl.DateTimeFormat>();

/** One formatter per locale, zone and shape (building one costs more than formatting with it). */
function formatter(locale: string, timeZone: string | undefined, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone ?? ''}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    formats.set(key, f);
  }
  return f;
}

const partOf = (parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value;

/**
 * The zone's short name at that instant: "CET", "CEST", "EST", "UTC"; else its offset, "GMT+9".
 * American English names only American zones, British English the European ones: whichever names
 * it wins over an offset.
 */
export function zoneName(date: Date, timeZone?: string): string {
  const us = partOf(formatter('en-US', timeZone, { timeZoneName: 'short' }).formatToParts(date), 'timeZoneName') ?? '';
  if (!/^GMT[+-]/.test(us)) return us;
  const gb = partOf(formatter('en-GB', timeZone, { timeZoneName: 'short' }).formatToParts(date), 'timeZoneName') ?? us;
  return /^GMT[+-]/.test(gb) ? us : gb;
}

/** An IANA zone the browser knows, else undefined (the viewer's): a stored zone never breaks a page. */
function knownZone(timeZone: string | undefined): string | undefined {
  if (!timeZone) return undefined;
  try {
    formatter('en-US', timeZone, {});
    return timeZone;
  } catch {
    return undefined;
  }
}

export interface DateOptions {
  /** The zone to write it in (a schedule's or budget's own); the viewer's when absent. */
  timeZone?: string;
  /** Seconds too (an execution's timings). */
  seconds?: boolean;
}

/** The day and the time apart ("Dec 5, 2026" and "22:36 CET"), for a cell that puts them on two lines. */
export function dateTimeParts(iso: string, opts: DateOptions = {}): { date: string; time: string } {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return { date: iso, time: '' };
  const zone = knownZone(opts.timeZone);
  const day = formatter('en-US', zone, { month: 'short', day: 'numeric', year: 'numeric' }).format(date);
  const clock = formatter('en-US', zone, { hour: '2-digit', minute: '2-digit', ...(opts.seconds ? { second: '2-digit' } : {}), hourCycle: 'h23' }).format(date);
  return { date: day, time: `${clock} ${zoneName(date, zone)}` };
}

/** "Dec 5, 2026, 22:36 CET" (with `seconds`: "Dec 5, 2026, 22:36:51 CET"). */
export function formatDateTime(iso: string, opts: DateOptions = {}): string {
  const { date, time } = dateTimeParts(iso, opts);
  return time ? `${date}, ${time}` : date;
}

const STEPS: [limit: number, size: number, unit: string][] = [
  [3_600, 60, 'min'],
  [86_400, 3_600, 'h'],
  [30 * 86_400, 86_400, 'd'],
  [365 * 86_400, 30 * 86_400, 'mo'],
  [Infinity, 365 * 86_400, 'y'],
];

/** How far from `now`, in a few characters: "just now", "5 min ago", "in 3 h", "2 d ago", "in 4 mo". */
export function formatRelative(iso: string, now: number): string {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  const abs = Math.abs(seconds);
  if (Number.isNaN(abs)) return iso;
  if (abs < 45) return 'just now';
  // The unit the rounded count fits: 59.6 minutes is "1 h", not "60 min".
  const [, size, unit] = STEPS.find(([limit, size]) => Math.round(abs / size) * size < limit)!;
  const n = Math.max(1, Math.round(abs / size));
  return seconds > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

/** The viewer's own zone (a form's default), UTC when the browser does not say. */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
