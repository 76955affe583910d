import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RecentIds } from './recent-ids';

it('remembers an id for ttlMs, once', () => {
  let now = 1_000;
  const ids = new RecentIds(10, 500, () => now);
  ids.add('exe_a');
  now += 499;
  assert.equal(ids.has('exe_a'), true, 'has does not forget');
  assert.equal(ids.take('exe_a'), true);
  assert.equal(ids.take('exe_a'), false, 'taken: forgotten');
  assert.equal(ids.take('exe_b'), false, 'never added');
  ids.add('exe_c');
  now += 500;
  assert.equal(ids.take('exe_c'), false, 'too old: remembered while younger than ttlMs');
  assert.equal(ids.size, 0, 'an expired id is forgotten when taken');
});

it('holds at most max ids, the oldest going first; adding again makes an id the newest', () => {
  const ids = new RecentIds(3, 60_000);
  for (const id of ['a', 'b', 'c']) ids.add(id);
  ids.add('a');
  ids.add('d');
  assert.equal(ids.size, 3);
  assert.equal(ids.take('b'), false, 'the oldest went');
  for (const id of ['a', 'c', 'd']) assert.equal(ids.take(id), true, id);
  for (let i = 0; i < 10_000; i++) ids.add(`x${i}`);
  assert.equal(ids.size, 3, 'a flood stays bounded');
});

it('keeps names such as __proto__ as plain ids', () => {
  const ids = new RecentIds(10, 60_000);
  ids.add('__proto__');
  assert.equal(ids.take('constructor'), false);
  assert.equal(ids.take('__proto__'), true);
});
