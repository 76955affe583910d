// Time zones as the service checks them: schedules run and budgets' periods start by the same
// zone rules (docs/schedules.md, docs/budgets.md). On the ground floor (vocabulary/) because both
// modules need it and neither should import the other.

/** A checked value, or why it was refused (the message a 400 carries). */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

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
