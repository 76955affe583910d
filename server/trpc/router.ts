import { router } from './init';
import { accountRouter } from './routers/account';
import { keysRouter } from './routers/keys';

// One router, two faces: the dashboard calls it through /api/trpc; the procedures with
// OpenAPI meta are also the public REST API under /v1.
export const appRouter = router({
  keys: keysRouter,
  account: accountRouter,
});

export type AppRouter = typeof appRouter;
