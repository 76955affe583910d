import { DB_KIND } from './harness';
import { dashboardLimitsSuite } from './dashboard-limits';

// The dashboard's mutations under the plan's limits: memory store on PGlite, the PostgreSQL
// table on PostgreSQL (Redis: dashboard-limits-redis.int.test.ts).
dashboardLimitsSuite(DB_KIND === 'postgres' ? 'postgres' : 'memory');
