import type { CronExpression } from 'cron-parser';

// Which calendar days a cron can run on, in plain arithmetic (docs/schedules.md, "What a search
// costs"). cron-parser finds occurrences by walking the calendar in the schedule's time zone, a
// day at a time across days that do not match, and each such step costs ~0.05–0.2 ms: the
// search for a cron that runs a few times a year walked hundreds of days, and one that runs
// once in decades (`0 0 * 2 1#5`) thousands. Here the days are matched with the rules of
// cron-parser's own day check (`#matchDayOfMonth`, read from cron-parser 5.10), at a fraction of
// a microsecond a day, so cron-parser is only asked to search around days that match.
// timing.test.ts compares the result with cron-parser's unaided search over many crons, zones
// and instants, so a version of cron-parser that changed its rules would fail there.

type Fields = CronExpression['fields'];

const DAY_MS = 86_400_000;

/** A calendar date's weekday (0 = Sunday) and its month's length, from its UTC midnight. */
function calendar(utcMidnight: number) {
  const d = new Date(utcMidnight);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  return { month, day: d.getUTCDate(), weekday: d.getUTCDay(), lastDay: new Date(Date.UTC(year, month, 0)).getUTCDate() };
}

/** Whether a cron runs on the calendar day starting at `utcMidnight` (the day's date, in any zone). */
export function runsOnDay(fields: Fields, utcMidnight: number): boolean {
  const { month, day, weekday, lastDay } = calendar(utcMidnight);
  if (!fields.month.values.includes(month as never)) return false;
  const dom = fields.dayOfMonth;
  const dow = fields.dayOfWeek;
  const values = dow.values as readonly (number | string)[];
  const matchedDom = (dom.values as readonly (number | string)[]).includes(day) || (dom.hasLastChar && day === lastDay);
  const nth = dow.nthDay;
  const matchedDow =
    (values.includes(weekday) && (nth <= 0 || Math.ceil(day / 7) === nth)) ||
    (dow.hasLastChar && day > lastDay - 7 && values.some((v) => weekday === parseInt(String(v).charAt(0), 10) % 7));
  if (!dom.isWildcard && !dow.isWildcard) return matchedDom || matchedDow;
  if (!dom.isWildcard) return matchedDom;
  if (!dow.isWildcard) return matchedDow;
  return matchedDom;
}

/** Where a local calendar day can lie in UTC: UTC offsets run from −12 h to +14 h. */
const EARLIEST_START = 14 * 3_600_000;
const LATEST_END = DAY_MS + 12 * 3_600_000;

/**
 * The stretches of time, in order, in which every occurrence between `from` and `until` lies:
 * around each calendar day the cron runs on (from two days before it, so cron-parser's search
 * enters the day as it would from any earlier instant, to the latest instant the day can have in
 * any zone). Consecutive stretches never overlap: each starts where the previous one ended at the
 * earliest. At most one stretch per day of the range.
 */
export function* stretches(fields: Fields, from: number, until: number): Generator<{ start: number; end: number }> {
  let cursor = from;
  for (let midnight = Math.floor(from / DAY_MS) * DAY_MS - 2 * DAY_MS; midnight - EARLIEST_START <= until; midnight += DAY_MS) {
    const end = Math.min(until, midnight + LATEST_END + 3_600_000);
    if (end <= cursor || !runsOnDay(fields, midnight)) continue;
    yield { start: Math.max(cursor, midnight - 2 * DAY_MS), end };
    cursor = end;
  }
}
