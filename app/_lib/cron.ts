import cronstrue from 'cronstrue';

// A schedule's cron in words ("At 09:00, Monday through Friday"), with cronstrue: its English
// build only, in 24-hour time like the rest of the schedule's times. It understands everything
// the server accepts (names, ranges, steps, `L`, `#`).

/** The cron in words, or null when it cannot be read (the raw cron then stands alone). */
export function describeCron(cron: string): string | null {
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true, throwExceptionOnParseError: true });
  } catch {
    return null;
  }
}
