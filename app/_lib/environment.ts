// The dashboard's selected environment, shared by the server (initial render) and the client.
export { ENVIRONMENT_COOKIE, ENVIRONMENT_HEADER } from '@/server/modules/auth/environment';
export type DashboardEnvironment = 'live' | 'test';
