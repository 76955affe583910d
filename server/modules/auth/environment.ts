// Where the dashboard says which environment it shows (browser-safe: the dashboard's client reads
// these too). Its tRPC calls send the header; its pages' first render and its event streams
// (EventSource sends no headers) read the cookie.
export const ENVIRONMENT_COOKIE = 'aas_env';
export const ENVIRONMENT_HEADER = 'x-environment';
