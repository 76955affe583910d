// Display helpers for durations and counts (instants: dates.ts). `now` is passed in so rendering stays pure.

/** A Date as the value of an <input type="datetime-local"> (local time, minutes). */
export function toDateTimeLocal(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A span of time for people: "850 ms", "2.4 s", "3 min 5 s", "1 h 2 min". */
export function formatDuration(ms: number): string {
  if (ms < 0) ms = 0;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.floor((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The time between two timestamps (or until `now` while the second is missing); null without a start. */
export function durationBetween(start: string | null, end: string | null, now: number): number | null {
  if (!start) return null;
  return (end ? new Date(end).getTime() : now) - new Date(start).getTime();
}

/** A number with thousands separators. */
export function formatCount(n: number): string {
  return new Intl.NumberFormat().format(n);
}

/** How long is left until `iso`, for people: "6 d 23 h", "23 h 59 min", "4 min 10 s", "45 s"; null once it has passed. */
export function formatTimeLeft(iso: string, now: number): string | null {
  const seconds = Math.floor((new Date(iso).getTime() - now) / 1000);
  if (seconds <= 0) return null;
  const [d, h, m, s] = [Math.floor(seconds / 86_400), Math.floor(seconds / 3600) % 24, Math.floor(seconds / 60) % 60, seconds % 60];
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}
