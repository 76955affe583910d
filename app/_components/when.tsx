import { dateTimeParts, formatDateTime, formatRelative } from '@/app/_lib/dates';

// An instant on a page, written the dashboard's one way (app/_lib/dates.ts) in a <time> element
// that carries it exactly. Relative ("3 h ago") when `now` is given, the absolute form then on
// hover; absolute ("Dec 5, 2026, 22:36 CET") otherwise.

interface WhenProps {
  iso: string;
  /** Given: written relative to it, the absolute form as the title. */
  now?: number;
  /** The zone of the thing (a schedule's, a budget's); the viewer's when absent. */
  timeZone?: string;
  seconds?: boolean;
  className?: string;
  testId?: string;
}

export function When({ iso, now, timeZone, seconds, className, testId }: WhenProps) {
  const absolute = formatDateTime(iso, { timeZone, seconds });
  return (
    <time dateTime={iso} title={now === undefined ? undefined : absolute} className={className} data-testid={testId}>
      {now === undefined ? absolute : formatRelative(iso, now)}
    </time>
  );
}

/** The day above its time ("Dec 5, 2026" / "22:36 CET"): a table cell's two short lines instead of one long one. */
export function WhenLines({ iso, timeZone, className }: { iso: string; timeZone?: string; className?: string }) {
  const { date, time } = dateTimeParts(iso, { timeZone });
  return (
    <time dateTime={iso} className={className}>
      <span className="block whitespace-nowrap">{date}</span>
      <span className="block text-xs whitespace-nowrap text-slate-500">{time}</span>
    </time>
  );
}
