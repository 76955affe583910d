import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { queryRows } from '../../db/rows';
import { bareTestDatabase } from '../harness';

// Budget periods (docs/budgets.md, "Periods") start at local midnight in the budget's zone by the
// same rules as schedules: the period PostgreSQL computes (`date_trunc` in the zone) is the last
// occurrence of the schedule `0 0 * * *` (`0 0 * * MON`, `0 0 1 * *`) at or before the instant,
// and it resets at the next one — also across DST changes at midnight, where a day's first
// instant is 01:00 (America/Santiago, Asia/Beirut), and in zones off the hour (Pacific/Chatham,
// Australia/Lord_Howe's half-hour DST).

let db: Db;
let close: () => Promise<void>;
let timing: typeof import('../../server/modules/schedules/timing');
let ledger: typeof import('../../server/modules/budgets/ledger');

before(async () => {
  const bare = await bareTestDatabase();
  db = bare.database.db;
  close = bare.close;
  timing = await import('../../server/modules/schedules/timing');
  ledger = await import('../../server/modules/budgets/ledger');
});
after(() => close?.());

const CRONS = { day: '0 0 * * *', week: '0 0 * * MON', month: '0 0 1 * *' } as const;
type Period = keyof typeof CRONS;

/** The period of `at` by the schedule rules: the last occurrence at or before it, and the next one. */
function bySchedule(period: Period, zone: string, at: Date): { start: string; resets: string } {
  const back = { day: 3, week: 9, month: 33 }[period] * 86_400_000;
  let start = timing.nextOccurrence(CRONS[period], zone, new Date(at.getTime() - back))!;
  for (let next = timing.nextOccurrence(CRONS[period], zone, start)!; next.getTime() <= at.getTime(); next = timing.nextOccurrence(CRONS[period], zone, start)!) start = next;
  const resets = timing.nextOccurrence(CRONS[period], zone, at)!;
  return { start: start.toISOString(), resets: resets.toISOString() };
}

async function byDatabase(period: Period, zone: string, at: Date): Promise<{ start: string; resets: string }> {
  const when = sql`${at.toISOString()}::timestamptz`;
  const [row] = await queryRows<{ start: Date | string; resets: Date | string }>(
    db,
    sql`select ${ledger.periodStartOf('b', when)} as start, ${ledger.resetsAtOf('b', when)} as resets from (select ${period}::text as period, ${zone}::text as timezone) b`,
  );
  return { start: new Date(row!.start).toISOString(), resets: new Date(row!.resets).toISOString() };
}

const CASES: { zone: string; around: string }[] = [
  { zone: 'America/Santiago', around: '2026-09-06T04:00:00Z' }, // 00:00 → 01:00: Sep 6 starts at 01:00 local
  { zone: 'America/Santiago', around: '2026-04-05T03:00:00Z' }, // 24:00 → 23:00: an hour repeats before midnight
  { zone: 'Asia/Beirut', around: '2026-03-28T22:00:00Z' }, // 00:00 → 01:00
  { zone: 'Asia/Beirut', around: '2026-10-24T21:00:00Z' }, // 00:00 → 23:00 the day before
  { zone: 'Pacific/Chatham', around: '2026-09-26T14:00:00Z' }, // UTC+12:45 → +13:45
  { zone: 'Australia/Lord_Howe', around: '2026-10-03T15:30:00Z' }, // a half-hour change
  { zone: 'Europe/Berlin', around: '2026-03-29T01:00:00Z' },
  { zone: 'Asia/Kolkata', around: '2026-11-30T18:30:00Z' }, // a Monday, and the 1st of a month, at local midnight
];

describe('budget periods', () => {
  for (const { zone, around } of CASES) {
    it(`match the schedules' midnight in ${zone} around ${around}`, async () => {
      const centre = new Date(around).getTime();
      // Every 30 minutes from 2 days before to 2 days after, and a millisecond either side of the centre.
      const instants = [centre - 1, centre, centre + 1];
      for (let t = centre - 2 * 86_400_000; t <= centre + 2 * 86_400_000; t += 1_800_000) instants.push(t);
      for (const period of ['day', 'week', 'month'] as const) {
        for (const t of instants) {
          const at = new Date(t);
          assert.deepEqual(await byDatabase(period, zone, at), bySchedule(period, zone, at), `${period} at ${at.toISOString()}`);
        }
      }
    });
  }

  it('a day whose midnight does not exist starts at its first instant (01:00 in Santiago)', async () => {
    const p = await byDatabase('day', 'America/Santiago', new Date('2026-09-06T12:00:00Z'));
    assert.equal(p.start, '2026-09-06T04:00:00.000Z'); // 01:00 -03
    assert.equal(p.resets, '2026-09-07T03:00:00.000Z'); // 00:00 -03
    const before = await byDatabase('day', 'America/Santiago', new Date('2026-09-06T03:59:59.999Z'));
    assert.equal(before.start, '2026-09-05T04:00:00.000Z'); // 00:00 -04
    assert.equal(before.resets, '2026-09-06T04:00:00.000Z');
  });

  it('total starts at the epoch and never resets', async () => {
    const [row] = await queryRows<{ start: Date | string; resets: null }>(
      db,
      sql`select ${ledger.periodStartOf('b')} as start, ${ledger.resetsAtOf('b')} as resets from (select 'total'::text as period, 'UTC'::text as timezone) b`,
    );
    assert.equal(new Date(row!.start).toISOString(), '1970-01-01T00:00:00.000Z');
    assert.equal(row!.resets, null);
  });
});
