import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dateTimeParts, formatDateTime, formatRelative, zoneName } from './dates';
import { EXECUTION_STATUS_WORDS, finishReasonWords, sentence } from './words';

// The dashboard's one way of writing times and statuses (issue 44, item 10).

describe('formatDateTime', () => {
  const at = '2026-12-05T21:36:51.000Z';
  it('writes the day, 24-hour time and the zone by its name', () => {
    assert.equal(formatDateTime(at, { timeZone: 'Europe/Berlin' }), 'Dec 5, 2026, 22:36 CET');
    assert.equal(formatDateTime('2026-07-05T21:36:51.000Z', { timeZone: 'Europe/Berlin' }), 'Jul 5, 2026, 23:36 CEST');
    assert.equal(formatDateTime(at, { timeZone: 'America/New_York' }), 'Dec 5, 2026, 16:36 EST');
    assert.equal(formatDateTime(at, { timeZone: 'UTC' }), 'Dec 5, 2026, 21:36 UTC');
    assert.equal(formatDateTime(at, { timeZone: 'Europe/London' }), 'Dec 5, 2026, 21:36 GMT');
  });
  it('names a zone with no short name by its offset', () => {
    assert.equal(formatDateTime(at, { timeZone: 'Asia/Tokyo' }), 'Dec 6, 2026, 06:36 GMT+9');
    assert.equal(zoneName(new Date(at), 'Asia/Kolkata'), 'GMT+5:30');
  });
  it('has seconds on demand, and parts for two-line cells', () => {
    assert.equal(formatDateTime(at, { timeZone: 'UTC', seconds: true }), 'Dec 5, 2026, 21:36:51 UTC');
    assert.deepEqual(dateTimeParts(at, { timeZone: 'UTC' }), { date: 'Dec 5, 2026', time: '21:36 UTC' });
  });
  it('falls back to the viewer’s zone for a zone the browser does not know, and never throws', () => {
    assert.match(formatDateTime(at, { timeZone: 'Not/AZone' }), /^Dec [56], 2026, \d\d:\d\d \S+$/);
    assert.equal(formatDateTime('not a date'), 'not a date');
  });
});

describe('formatRelative', () => {
  const now = Date.parse('2026-12-05T12:00:00Z');
  const ago = (s: number) => new Date(now - s * 1000).toISOString();
  it('says how far in a few characters, past and future', () => {
    assert.equal(formatRelative(ago(10), now), 'just now');
    assert.equal(formatRelative(ago(5 * 60), now), '5 min ago');
    assert.equal(formatRelative(ago(-3 * 3600), now), 'in 3 h');
    assert.equal(formatRelative(ago(2 * 86_400), now), '2 d ago');
    assert.equal(formatRelative(ago(-90 * 86_400), now), 'in 3 mo');
    assert.equal(formatRelative(ago(800 * 86_400), now), '2 y ago');
  });
  it('moves to the next unit when rounding reaches it', () => {
    assert.equal(formatRelative(ago(3570), now), '1 h ago');
    assert.equal(formatRelative(ago(-(23 * 3600 + 50 * 60)), now), 'in 1 d');
  });
});

describe('status words', () => {
  it('puts people’s words on badges', () => {
    assert.equal(EXECUTION_STATUS_WORDS.requires_action, 'Awaiting approval');
    assert.equal(finishReasonWords('tool-calls'), 'Tool calls');
    assert.equal(finishReasonWords('stop'), 'Answered');
    assert.equal(finishReasonWords('new_reason'), 'New reason');
    assert.equal(sentence('requires_action'), 'Requires action');
  });
});
