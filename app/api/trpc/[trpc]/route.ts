import { actorFromSession, currentSession, parseEnvironment } from '@/server/modules/auth/session';
import { createDashboardHandler } from '@/server/api/trpc/dashboard';

// The dashboard face of the router: the signed-in user, in the environment the dashboard sends
// in `x-environment` (live unless it says test). The rest (context, limits, errors) is in
// server/api/trpc/dashboard.ts.
const handler = createDashboardHandler(async (req) => actorFromSession(await currentSession(), parseEnvironment(req.headers.get('x-environment'))));

export { handler as GET, handler as POST };
