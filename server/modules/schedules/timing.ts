import { CronExpressionParser } from 'cron-parser';
import { type Checked } from '../vocabulary/time-zones';
import { stretches } from './calendar';

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

/**
 * How far ahead an occurrence is looked for: a year (366 days) and a day, so a yearly schedule
 * always finds its next run (a leap year and a daylight-saving offset included). A cron with no
 * run within it — one of calendar coincidences, such as `0 0 * 2 1#5`, the fifth Monday of
 * February, next in 2044 — is refused on writes and previews, and a schedule that later finds
 * none ends, like one past its `endAt` (docs/schedules.md, "What a search costs").
 */
export const HORIZON_MS = 367 * 24 * 60 * 60_000;

const FIELDS = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;
const NAMES = /JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT/g;


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
    // Parsing computes no occurrence (a date that never comes, `0 0 30 2 *`, is refused here);
    // whether the cron runs within a year is the first search's to say (`nextOccurrence`).
    CronExpressionParser.parse(normalized, { tz: 'UTC' });
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


type Dates = ReturnType<typeof CronExpressionParser.parse>;

/** The iterator's next date, or null past its end (the horizon) or when there is none. */
function step(dates: Dates, backwards = false): Date | null {
  try {
    return (backwards ? dates.prev() : dates.next()).toDate();
  } catch {
    // Out of the time span (the horizon), or cron-parser's own loop limit.
    return null;
  }
}

/**
 * The occurrences strictly after `after` and up to `until`, in order. cron-parser searches only
 * the stretches around the days the cron runs on (calendar.ts), so each costs a few of its steps
 * whatever the cron: its unaided search for `0 0 * 2 1#5` walked 18 years of days, 0.2 s of CPU
 * on the event loop every tenant shares.
 */
function* occurrences(cron: string, zone: string, after: Date, until: number): Generator<Date> {
  const fields = CronExpressionParser.parse(cron, { tz: zone }).fields;
  for (const { start, end } of stretches(fields, after.getTime(), until)) {
    const dates = CronExpressionParser.parse(cron, { tz: zone, currentDate: new Date(start), endDate: new Date(end) });
    for (let d = step(dates); d; d = step(dates)) yield d;
  }
}

/** The first occurrence strictly after `after` (a checked cron and zone); null if none comes within the horizon. */
export function nextOccurrence(cron: string, zone: string, after: Date): Date | null {
  for (const d of occurrences(cron, zone, after, after.getTime() + HORIZON_MS)) return d;
  return null;
}

/** The next `count` occurrences strictly after `after`, within the horizon (what the dashboard shows before saving). */
export function nextOccurrences(cron: string, zone: string, after: Date, count: number): Date[] {
  const out: Date[] = [];
  if (count <= 0) return out;
  for (const d of occurrences(cron, zone, after, after.getTime() + HORIZON_MS)) if (out.push(d) >= count) break;
  return out;
}

/** The last occurrence at or before `at` and not before `notBefore`; null if there is none. */
export function previousOccurrence(cron: string, zone: string, at: Date, notBefore: Date): Date | null {
  const dates = CronExpressionParser.parse(cron, { tz: zone, currentDate: new Date(at.getTime() + 1), startDate: notBefore });
  return step(dates, true);
}

/**
 * What runs when a schedule is looked at again after a while (`due` was its next occurrence, `now`
 * is later): at most one catch-up run, for the latest occurrence that is due, and only if it is
 * less than CATCH_UP_WINDOW_MS old; the occurrences in between are skipped. Returns the
 * occurrence to run (or null) and the schedule's next occurrence after `now`.
 */
export function catchUp(cron: string, zone: string, due: Date, now: Date): { run: Date | null; next: Date | null } {
  if (due.getTime() > now.getTime()) return { run: null, next: due };
  const next = nextOccurrence(cron, zone, now);
  // Only an occurrence within the window can run, so the search looks no further back.
  const latest = previousOccurrence(cron, zone, now, new Date(Math.max(due.getTime(), now.getTime() - CATCH_UP_WINDOW_MS)));
  const run = latest && now.getTime() - latest.getTime() < CATCH_UP_WINDOW_MS ? latest : null;
  return { run, next };
}
