import { CronExpressionParser } from 'cron-parser';

// When a schedule runs (docs/schedules.md, "When a schedule runs"): a five-field cron read in an
// IANA time zone. The occurrences are instants: the cron's wall-clock times in that zone, so on a
// daylight-saving day a daily schedule still runs exactly once —
// - a time the clock skips (02:30 in Berlin on the last Sunday of March) runs when the clock
//   has moved on past the gap, at 03:30 local;
// - a time the clock shows twice (02:30 on the last Sunday of October) runs the first time only;
// - a schedule of intervals (every 15 minutes, hourly) keeps running every 15 minutes of real
//   time through both changes: never two runs at one instant, none missed in the repeated hour.
// cron-parser computes the zone's wall-clock times this way (tested in schedules/timing.test.ts).
// Occurrences are found from an instant, never counted from a process's clock, so any number
// of processes compute the same ones.

/** How long after its time an occurrence missed while no process ran may still be caught up. */
export const CATCH_UP_WINDOW_MS = 60 * 60_000;

const FIELDS = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;
const NAMES = /JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT/g;

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * A cron of five fields (minute hour day-of-month month day-of-week), as written: ranges, lists,
 * steps, names (`MON`, `JAN`), `L` and `#`. Refused: a sixth field (seconds: a schedule runs at
 * most once a minute), the `@daily` shorthands (write the five fields), `H` (a random minute chosen
 * by each process would differ between processes), and a cron with no occurrence at all
 * (`0 0 30 2 *`).
 */
export function checkCron(cron: string): Checked<string> {
  const text = cron.trim();
  if (text.length === 0 || text.length > 200) return { ok: false, message: 'must be a cron expression of five fields, at most 200 characters' };
  if (text.startsWith('@')) return { ok: false, message: `must be five fields (minute hour day-of-month month day-of-week); write '${text.slice(0, 20)}' as its five fields` };
  const fields = text.split(/\s+/);
  if (fields.length !== 5) {
    return {
      ok: false,
      message:
        fields.length === 6
          ? 'must be five fields (minute hour day-of-month month day-of-week): seconds are not supported, a schedule runs at most once a minute'
          : `must be five fields (minute hour day-of-month month day-of-week), not ${fields.length}`,
    };
  }
  for (const [i, field] of fields.entries()) {
    if (!/^[0-9A-Za-z*?,/#-]+$/.test(field)) return { ok: false, message: `the ${FIELDS[i]} field '${field.slice(0, 20)}' has characters a cron does not use` };
    // `H` (hashed) is a random value per parser, so each process would choose its own.
    if (field.toUpperCase().replace(NAMES, '').includes('H')) return { ok: false, message: `the ${FIELDS[i]} field uses 'H', which is not supported: choose the value` };
  }
  const normalized = fields.join(' ');
  try {
    CronExpressionParser.parse(normalized, { tz: 'UTC', currentDate: 0 }).next();
  } catch (err) {
    return { ok: false, message: describe(err) };
  }
  return { ok: true, value: normalized };
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/Invalid explicit day of month/i.test(message)) return 'never occurs (no month has that day)';
  const range = /got value (\S+) expected range (\d+)-(\d+)/.exec(message);
  if (range) return `has ${range[1]} where the field allows ${range[2]}–${range[3]}`;
  return `is not a valid cron expression (${message.slice(0, 120)})`;
}

/**
 * An IANA time-zone name (`Europe/Berlin`, `UTC`, a link such as `US/Eastern`), in any case;
 * answered in its canonical form (`europe/berlin` → `Europe/Berlin`, `US/Eastern` →
 * `America/New_York`). UTC offsets (`+01:00`) are not names and are refused.
 */
export function checkTimeZone(zone: string): Checked<string> {
  if (zone.length === 0 || zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+/-]*$/.test(zone)) {
    return { ok: false, message: `'${zone.slice(0, 64)}' is not an IANA time zone name (such as 'Europe/Berlin' or 'UTC')` };
  }
  try {
    return { ok: true, value: new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone };
  } catch {
    return { ok: false, message: `'${zone}' is not an IANA time zone name (such as 'Europe/Berlin' or 'UTC')` };
  }
}

/** The first occurrence strictly after `after` (a checked cron and zone); null if there is none. */
export function nextOccurrence(cron: string, zone: string, after: Date): Date | null {
  const dates = CronExpressionParser.parse(cron, { tz: zone, currentDate: after });
  if (!dates.hasNext()) return null;
  return dates.next().toDate();
}

/** The next `count` occurrences strictly after `after` (what the dashboard shows before saving). */
export function nextOccurrences(cron: string, zone: string, after: Date, count: number): Date[] {
  const dates = CronExpressionParser.parse(cron, { tz: zone, currentDate: after });
  const out: Date[] = [];
  while (out.length < count && dates.hasNext()) out.push(dates.next().toDate());
  return out;
}

/** The last occurrence at or before `at`; null if there is none. */
export function previousOccurrence(cron: string, zone: string, at: Date): Date | null {
  const dates = CronExpressionParser.parse(cron, { tz: zone, currentDate: new Date(at.getTime() + 1) });
  if (!dates.hasPrev()) return null;
  return dates.prev().toDate();
}

/**
 * What runs when a schedule is looked at again after a while (`due` was its next occurrence, `now`
 * is later): at most one catch-up run, for the latest occurrence that is due, and only if it is
 * less than CATCH_UP_WINDOW_MS old; the occurrences in between are skipped. Returns the
 * occurrence to run (or null) and the schedule's next occurrence after `now`.
 */
export function catchUp(cron: string, zone: string, due: Date, now: Date): { run: Date | null; next: Date | null } {
  const next = nextOccurrence(cron, zone, now);
  if (due.getTime() > now.getTime()) return { run: null, next: due };
  const latest = previousOccurrence(cron, zone, now) ?? due;
  const run = now.getTime() - latest.getTime() < CATCH_UP_WINDOW_MS ? latest : null;
  return { run, next };
}
