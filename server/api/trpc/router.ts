import { env } from '../../platform/env.js';
import { router } from './init';
import { settleOutputChecks } from './outputs';
import { accountRouter } from './routers/account';
import { agentsRouter } from './routers/agents';
import { analyticsRouter } from './routers/analytics';
import { auditRouter } from './routers/audit';
import { invitationsRouter, membersRouter, workspacesRouter } from './routers/team';
import { eventsRouter } from './routers/events';
import { conversationsRouter, executionsRouter } from './routers/executions';
import { keysRouter } from './routers/keys';
import { modelsRouter } from './routers/models';
import { schedulesRouter } from './routers/schedules';
import { budgetsRouter } from './routers/budgets';
import { datasetsRouter } from './routers/datasets';
import { evalRulesRouter, experimentsRouter } from './routers/experiments';
import { webhooksRouter } from './routers/webhooks';

// One router, two faces: the dashboard calls it through /api/trpc; the procedures with
// OpenAPI meta are also the public REST API under /v1.
export const appRouter = router({
  keys: keysRouter,
  agents: agentsRouter,
  account: accountRouter,
  executions: executionsRouter,
  conversations: conversationsRouter,
  models: modelsRouter,
  webhooks: webhooksRouter,
  events: eventsRouter,
  analytics: analyticsRouter,
  schedules: schedulesRouter,
  budgets: budgetsRouter,
  datasets: datasetsRouter,
  experiments: experimentsRouter,
  evalRules: evalRulesRouter,
  audit: auditRouter,
  members: membersRouter,
  workspaces: workspacesRouter,
  invitations: invitationsRouter,
});

// Outputs: trusted in production, checked strictly elsewhere (outputs.ts).
settleOutputChecks(appRouter, env.NODE_ENV === 'production' ? 'trust' : 'strict');

export type AppRouter = typeof appRouter;
