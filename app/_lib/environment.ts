// The dashboard's selected environment, shared by the server (initial render) and the client.
export const ENVIRONMENT_COOKIE = 'aas_env';
export const ENVIRONMENT_HEADER = 'x-environment';
export type DashboardEnvironment = 'live' | 'test';
