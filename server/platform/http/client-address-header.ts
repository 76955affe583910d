// The custom server tells Next's route handlers (which cannot see the socket) the client's
// address in this request header, after overwriting whatever the client sent in it.
export const CLIENT_ADDRESS_HEADER = 'x-aas-client-address';

/** The client address the custom server stamped on the request ('unknown' when served otherwise). */
export function stampedClientAddress(headers: { get(name: string): string | null } | Record<string, unknown>): string {
  const value = typeof headers.get === 'function' ? (headers as { get(name: string): string | null }).get(CLIENT_ADDRESS_HEADER) : (headers as Record<string, unknown>)[CLIENT_ADDRESS_HEADER];
  return typeof value === 'string' && value ? value : 'unknown';
}
