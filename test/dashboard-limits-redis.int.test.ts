// test: postgres — PostgreSQL only: runs in the PostgreSQL pass alone (docs/testing.md, "Once or on both databases")
import { describe } from 'node:test';
import { DB_KIND } from './harness';
import { dashboardLimitsSuite } from './dashboard-limits';

// The dashboard's mutations under the plan's limits with the counters in Redis (REDIS_URL), as
// a scaled-out deployment runs. PostgreSQL only, like every multi-process set-up.
describe('with Redis', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only (TEST_DB=postgres)' }, () => dashboardLimitsSuite('redis'));
