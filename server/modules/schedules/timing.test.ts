import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATCH_UP_WINDOW_MS, catchUp, checkCron, checkTimeZone, nextOccurrence, nextOccurrences } from './timing';

// When schedules run: the occurrence computation itself, DST days included (docs/schedules.md).

const iso = (d: Date | null) => d?.toISOString() ?? null;
/** The occurrences in [from, to), one after another as a schedule would take them. */
function between(cron: string, zone: string, from: string, to: string): string[] {
  const out: string[] = [];
  let at = new Date(new Date(from).getTime() - 1);
  for (;;) {
    const next = nextOccurrence(cron, zone, at);
    if (!next || next.getTime() >= new Date(to).getTime()) return out;
    out.push(next.toISOString());
    at = next;
  }
}
/** The local calendar day of an instant in a zone (YYYY-MM-DD). */
const localDay = (instant: string, zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(instant));

describe('a daily schedule on daylight-saving days runs exactly once', () => {
  it('Europe/Berlin 02:30, spring forward (2026-03-29: 02:00 → 03:00): once, at 03:30 local', () => {
    const runs = between('30 2 * * *', 'Europe/Berlin', '2026-03-27T00:00:00Z', '2026-04-01T00:00:00Z');
    assert.deepEqual(runs, [
      '2026-03-27T01:30:00.000Z', // 02:30 CET
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:30:00.000Z', // 02:30 does not exist: 03:30 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
      '2026-03-31T00:30:00.000Z',
    ]);
    assert.deepEqual(runs.map((r) => localDay(r, 'Europe/Berlin')), ['2026-03-27', '2026-03-28', '2026-03-29', '2026-03-30', '2026-03-31']);
  });

  it('Europe/Berlin 02:30, fall back (2026-10-25: 03:00 → 02:00): once, the first 02:30', () => {
    const runs = between('30 2 * * *', 'Europe/Berlin', '2026-10-23T00:00:00Z', '2026-10-28T00:00:00Z');
    assert.deepEqual(runs, [
      '2026-10-23T00:30:00.000Z', // 02:30 CEST
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST); not again at 01:30Z (02:30 CET)
      '2026-10-26T01:30:00.000Z', // 02:30 CET
      '2026-10-27T01:30:00.000Z',
    ]);
    assert.equal(new Set(runs.map((r) => localDay(r, 'Europe/Berlin'))).size, runs.length, 'one a day');
  });

  it('America/New_York 02:30 on both change days of 2026 (03-08, 11-01): once each', () => {
    for (const [from, to, day] of [
      ['2026-03-07T12:00:00Z', '2026-03-10T12:00:00Z', '2026-03-08'],
      ['2026-10-31T12:00:00Z', '2026-11-03T12:00:00Z', '2026-11-01'],
    ] as const) {
      const runs = between('30 2 * * *', 'America/New_York', from, to);
      assert.equal(runs.filter((r) => localDay(r, 'America/New_York') === day).length, 1, `${day}: ${runs.join(', ')}`);
      assert.equal(new Set(runs.map((r) => localDay(r, 'America/New_York'))).size, runs.length);
    }
  });

  it('a daily 02:30 runs on each of the 365 days of 2026, once', () => {
    const runs = between('30 2 * * *', 'Europe/Berlin', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z');
    assert.equal(runs.length, 365);
    assert.equal(new Set(runs.map((r) => localDay(r, 'Europe/Berlin'))).size, 365);
  });
});

describe('interval schedules on daylight-saving days', () => {
  it('every 15 minutes keeps 15 minutes of real time through spring forward: no gap, no instant twice', () => {
    const runs = between('*/15 * * * *', 'Europe/Berlin', '2026-03-29T00:30:00Z', '2026-03-29T02:00:00Z');
    assert.deepEqual(runs, ['2026-03-29T00:30:00.000Z', '2026-03-29T00:45:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29T01:15:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-29T01:45:00.000Z']);
  });

  it('hourly through fall back runs in the repeated hour too, each instant once', () => {
    const runs = between('0 * * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z', '2026-10-25T03:00:00Z');
    assert.deepEqual(runs, ['2026-10-24T23:00:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z']);
  });
});

describe('checking a cron', () => {
  it('takes five fields, with names, ranges, steps, L and #, and normalises the spaces', () => {
    assert.deepEqual(checkCron(' 0  9 * * MON-FRI '), { ok: true, value: '0 9 * * MON-FRI' });
    for (const ok of ['* * * * *', '*/5 0-6 1,15 JAN-JUN *', '0 0 L * *', '0 12 * * 1#2', '30 2 * * THU']) assert.equal(checkCron(ok).ok, true, ok);
  });

  it('refuses seconds, shorthands, H, out-of-range values, wrong field counts, never-occurring dates and stray characters, saying why', () => {
    const refused = (cron: string, pattern: RegExp) => {
      const checked = checkCron(cron);
      assert.equal(checked.ok, false, cron);
      assert.match((checked as { message: string }).message, pattern, cron);
    };
    refused('* * * * * *', /seconds are not supported/);
    refused('@hourly', /five fields/);
    refused('0 0 * *', /not 4/);
    refused('H * * * *', /'H'/);
    refused('61 * * * *', /61 where the field allows 0–59/);
    refused('0 0 30 2 *', /never occurs/);
    refused('0 0 * * $(id)', /characters a cron does not use/);
    refused('0 0 * * ＭＯＮ', /characters a cron does not use/);
    refused('', /five fields/);
    refused('*'.repeat(201), /at most 200/);
  });
});

describe('checking a time zone', () => {
  it('answers the canonical IANA name, whatever the case, and follows links', () => {
    assert.deepEqual(checkTimeZone('europe/berlin'), { ok: true, value: 'Europe/Berlin' });
    assert.deepEqual(checkTimeZone('UTC'), { ok: true, value: 'UTC' });
    assert.deepEqual(checkTimeZone('US/Eastern'), { ok: true, value: 'America/New_York' });
  });

  it('refuses unknown names and offsets', () => {
    for (const zone of ['Mars/Olympus_Mons', '+01:00', '', 'Europe/Berlin\u0000', '../etc/passwd', 'x'.repeat(65)]) assert.equal(checkTimeZone(zone).ok, false, zone);
  });
});

describe('the next runs and catching up', () => {
  it('gives the next five run times in the zone', () => {
    const runs = nextOccurrences('0 9 * * MON-FRI', 'Asia/Tokyo', new Date('2026-11-27T00:00:00Z'), 5).map(iso);
    assert.deepEqual(runs, ['2026-11-30T00:00:00.000Z', '2026-12-01T00:00:00.000Z', '2026-12-02T00:00:00.000Z', '2026-12-03T00:00:00.000Z', '2026-12-04T00:00:00.000Z']);
  });

  it('after downtime: one catch-up run for the latest missed occurrence if it is under an hour old, and the next one after now', () => {
    const every10 = '*/10 * * * *';
    const due = new Date('2026-11-25T10:00:00Z');
    // Down from 09:55 to 10:35: 10:00, 10:10, 10:20, 10:30 missed; one run, for 10:30.
    assert.deepEqual(
      Object.fromEntries(Object.entries(catchUp(every10, 'UTC', due, new Date('2026-11-25T10:35:00Z'))).map(([k, v]) => [k, iso(v)])),
      { run: '2026-11-25T10:30:00.000Z', next: '2026-11-25T10:40:00.000Z' },
    );
    // A daily run missed by more than an hour: none, the next one tomorrow.
    const daily = catchUp('0 3 * * *', 'UTC', new Date('2026-11-25T03:00:00Z'), new Date(Date.parse('2026-11-25T03:00:00Z') + CATCH_UP_WINDOW_MS));
    assert.deepEqual({ run: iso(daily.run), next: iso(daily.next) }, { run: null, next: '2026-11-26T03:00:00.000Z' });
    // Nothing due yet: nothing to run.
    assert.deepEqual(catchUp(every10, 'UTC', due, new Date('2026-11-25T09:59:00Z')), { run: null, next: due });
  });
});
