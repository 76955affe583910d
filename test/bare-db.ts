import { after, before } from 'node:test';
import type { Database } from '../db/client';
import { bareTestDatabase } from './harness';

/**
 * A bare test database (harness.ts `bareTestDatabase`) opened before the tests of the current
 * file or suite and closed after them; the returned function gives it once they run.
 */
export function bareTestDatabaseHooks(): () => Database {
  let database: Database | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  before(async () => {
    ({ database, close: cleanup } = await bareTestDatabase());
  });
  after(async () => {
    await cleanup?.();
  });
  return () => database!;
}
