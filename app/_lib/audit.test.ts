import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditCsv, collectAuditEvents, MAX_EXPORT } from './audit-csv';
import { auditFilters, auditSearchQuery, parseAuditSearch } from './audit-filters';
import type { AuditEvent } from './types';

const event = (n: number, fields: Partial<AuditEvent> = {}): AuditEvent => ({
  id: `aud_${String(n).padStart(26, '0')}`,
  action: 'agent.updated',
  actor: { type: 'user', id: 'usr_1', email: 'ada@example.com' },
  target: { type: 'agent', id: 'agt_1' },
  environment: 'live',
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0',
  requestId: 'req_1',
  changes: { name: ['Old', 'New'] },
  createdAt: '2026-11-27T10:00:00.000Z',
  ...fields,
});

describe('the Audit log CSV', () => {
  it('is one header and one rectangular row per record, changes as JSON, formulas defused', () => {
    const csv = auditCsv([
      event(1, { changes: { name: [null, '=HYPERLINK("http://evil")'] } }),
      event(2, { actor: { type: 'key', id: 'key_1', prefix: 'sk_live_ab12' }, userAgent: null, changes: null }),
      event(3, { actor: { type: 'system' }, environment: null }),
    ]);
    const lines = csv.split('\r\n');
    assert.equal(lines.at(-1), '');
    assert.equal(lines[0], 'id,created_at,action,actor_type,actor_id,actor,target_type,target_id,environment,ip,user_agent,request_id,changes');
    // The formula sits inside JSON text: the cell starts with "{", so a spreadsheet shows it as text.
    assert.equal(lines[1]!.split(',').length > 13, true);
    assert.match(lines[1]!, /"\{""name"":\[null,""=HYPERLINK\(\\""http:\/\/evil\\""\)""\]\}"$/);
    assert.equal(lines[2], `${event(2).id},2026-11-27T10:00:00.000Z,agent.updated,key,key_1,sk_live_ab12,agent,agt_1,live,203.0.113.7,,req_1,`);
    assert.match(lines[3]!, /,system,,system,agent,agt_1,,203/);
  });

  it('a user agent or id typed to look like a formula is defused', () => {
    const csv = auditCsv([event(1, { userAgent: '=cmd|" /C calc"!A0', changes: null })]);
    assert.match(csv.split('\r\n')[1]!, /,"'=cmd\|"" \/C calc""!A0",req_1,$/);
  });

  it('reads page after page with the filters, and stops at MAX_EXPORT saying so', async () => {
    const asked: unknown[] = [];
    let n = 0;
    const fetchPage = async (input: { limit: number; after?: string }) => {
      asked.push(input);
      const data = Array.from({ length: input.limit }, () => event(++n));
      return { data, hasMore: true, nextCursor: data.at(-1)!.id };
    };
    const progress: number[] = [];
    const { events, truncated } = await collectAuditEvents(fetchPage, { action: 'key.created' }, (c) => progress.push(c));
    assert.equal(events.length, MAX_EXPORT);
    assert.equal(truncated, true);
    assert.deepEqual(asked[0], { action: 'key.created', limit: 100 });
    assert.deepEqual(asked[1], { action: 'key.created', limit: 100, after: event(100).id });
    assert.equal(progress.at(-1), MAX_EXPORT);
  });

  it('ends at the last page, not truncated', async () => {
    const pages = [
      { data: [event(1), event(2)], hasMore: true, nextCursor: event(2).id },
      { data: [event(3)], hasMore: false },
    ];
    const { events, truncated } = await collectAuditEvents(async () => pages.shift()!, {});
    assert.deepEqual(
      events.map((e) => e.id),
      [event(1).id, event(2).id, event(3).id],
    );
    assert.equal(truncated, false);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(collectAuditEvents(async () => ({ data: [], hasMore: false }), {}, undefined, controller.signal));
  });
});

describe('the Audit log filters in the address', () => {
  it('keeps known actions, ids and real days; drops the rest', () => {
    const s = parseAuditSearch({ action: 'key.created', actorId: ' usr_1 ', targetId: ['a', 'b'], from: '2026-11-01', to: '2026-13-45' });
    assert.deepEqual(s, { action: 'key.created', actorId: 'usr_1', targetId: '', from: '2026-11-01', to: '' });
    assert.equal(parseAuditSearch({ action: '__proto__' }).action, null);
    assert.equal(parseAuditSearch({ actorId: 'x'.repeat(500) }).actorId.length, 100);
  });

  it('asks the API for whole UTC days, the last one included', () => {
    const s = parseAuditSearch({ from: '2026-11-01', to: '2026-11-30', actorId: 'key_1' });
    assert.deepEqual(auditFilters(s), { actorId: 'key_1', start: '2026-11-01', end: '2026-12-01' });
    assert.equal(auditSearchQuery(s), '?actorId=key_1&from=2026-11-01&to=2026-11-30');
    assert.equal(auditSearchQuery(parseAuditSearch({})), '');
  });
});
