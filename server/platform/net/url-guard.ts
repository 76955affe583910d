import { promises as dnsPromises, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, type Dispatcher } from 'undici';

// The SSRF guard shared by everything that calls a URL a user gave us (HTTP tools, webhooks).
// A user-supplied URL must not reach loopback, private, link-local (cloud metadata at
// 169.254.169.254), carrier-grade NAT or otherwise non-public addresses, unless the caller
// allows it (test mode / dev config). Three layers, after Svix's `NonLocalDnsResolver`:
//   1. checkUrlShape (sync): scheme, credentials, length, and IP literals / reserved names.
//      WHATWG `new URL` already rewrites odd IPv4 spellings (`127.1`, `2130706433`, `0x7f.1`,
//      `0177.0.0.1`) to dotted form, so one parse with ipaddr.js covers them all.
//   2. checkUrl (async): also resolves the name and refuses if ANY address is not public.
//      Good for a clear error at create time, but not a defence on its own (DNS rebinding).
//   3. guardedDispatcher: an undici Agent whose `connect.lookup` resolves, drops non-public
//      addresses and connects to what is left, so the address checked is the one connected.
//      Node's net.connect skips `lookup` for IP-literal hosts, so every request must also
//      pass checkUrlShape first (callHttpTool and webhook delivery do).

export type RefusalReason =
  | 'invalid'
  | 'too_long'
  | 'scheme'
  | 'https_required'
  | 'credentials'
  | 'no_host'
  | 'blocked_host'
  | 'non_public_address'
  | 'unresolvable';

/**
 * A URL we will not call. `message` is safe to show to API users: it says what is wrong with
 * what they wrote, and never what our DNS answered (NOT_ALLOWED, docs/security.md).
 */
export class UrlRefused extends Error {
  override name = 'UrlRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

export interface UrlGuardOptions {
  allowPrivate: boolean;
  requireHttps?: boolean;
}

/** Resolves a host name to all its addresses (a test seam; defaults to dns.promises.lookup). */
export type Resolver = (hostname: string, family?: number) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname, family) =>
  dnsPromises.lookup(hostname, { all: true, family: family === 4 || family === 6 ? family : 0 });
let defaultResolver: Resolver = systemResolver;

/**
 * Replaces the system resolver for this process (tests only: a name that resolves to 127.0.0.1
 * without a DNS server); `null` restores it.
 */
export function setResolverForTests(resolver: Resolver | null): void {
  defaultResolver = resolver ?? systemResolver;
}

export const MAX_URL_LENGTH = 2048;

/**
 * The one message for a host name we resolved and will not call: its addresses are not public,
 * or it has none. Neither the address nor which of the two it was: a tenant must not learn how
 * names resolve inside our network (docs/security.md, "SSRF refusals say nothing of our DNS").
 */
export const NOT_ALLOWED = 'has a host that does not resolve to an allowed address';

const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
};

/** Why an IP address is not a public unicast one, as "a loopback address", or null if it is public. */
export function addressRefusal(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return 'an invalid address';
  // process() turns IPv4-mapped IPv6 (::ffff:7f00:1) into the embedded IPv4 address.
  const ip = ipaddr.process(bare);
  const range = ip.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? 'a reserved address';
  // Deprecated IPv4-compatible IPv6 (::7f00:1, ::/96) is "unicast" to ipaddr.js; nothing public lives there.
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return 'a reserved address';
  return null;
}

// Names that are never public, whatever DNS says (and "*.internal" is reserved for private use).
const BLOCKED_NAMES = new Set(['localhost', 'localhost.localdomain', 'metadata', 'metadata.google.internal', 'instance-data']);
const BLOCKED_SUFFIXES = ['.localhost', '.internal'];

function hostRefusal(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (BLOCKED_NAMES.has(name) || BLOCKED_SUFFIXES.some((s) => name.endsWith(s))) return 'uses a host name that is not public';
  // A single-label name only resolves through local search domains, i.e. to an internal host.
  if (!name.includes('.')) return 'uses a host name that is not public';
  return null;
}

/** The host as an IP literal without brackets, or null for a name. */
function ipLiteral(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/**
 * Synchronous checks: a parseable http(s) URL ≤ 2048 chars, no credentials, a host; unless
 * allowPrivate, https when requireHttps, and no IP literal or reserved name that isn't public.
 * Throws UrlRefused; returns the parsed URL.
 */
export function checkUrlShape(raw: string, opts: UrlGuardOptions): URL {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH) {
    throw new UrlRefused('too_long', `must be at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('invalid', 'is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UrlRefused('scheme', 'must use http or https');
  if (url.username || url.password) throw new UrlRefused('credentials', 'must not contain credentials');
  if (!url.hostname) throw new UrlRefused('no_host', 'must have a host');
  if (opts.allowPrivate) return url;
  if (opts.requireHttps && url.protocol !== 'https:') throw new UrlRefused('https_required', 'must use https');
  const literal = ipLiteral(url);
  if (literal) {
    const refusal = addressRefusal(literal);
    if (refusal) throw new UrlRefused('non_public_address', `uses ${refusal} (${literal})`);
    return url;
  }
  const refusal = hostRefusal(url.hostname);
  if (refusal) throw new UrlRefused('blocked_host', refusal);
  return url;
}

/**
 * checkUrlShape, then (unless allowPrivate) resolve the host name and refuse if ANY address is
 * not public. Use it to reject a URL early (at create time); the connection itself must still
 * go through guardedDispatcher, since DNS may answer differently by then.
 */
export async function checkUrl(raw: string, opts: UrlGuardOptions & { resolver?: Resolver }): Promise<URL> {
  const url = checkUrlShape(raw, opts);
  if (opts.allowPrivate || ipLiteral(url)) return url;
  const addresses = await resolveOrRefuse(url.hostname, opts.resolver ?? defaultResolver);
  if (addresses.some(({ address }) => addressRefusal(address) !== null)) throw new UrlRefused('non_public_address', NOT_ALLOWED);
  return url;
}

async function resolveOrRefuse(hostname: string, resolver: Resolver, family?: number): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolver(hostname, family);
  } catch {
    throw new UrlRefused('unresolvable', NOT_ALLOWED);
  }
  if (addresses.length === 0) throw new UrlRefused('unresolvable', NOT_ALLOWED);
  return addresses;
}

/**
 * The `lookup` given to net/tls.connect: resolve, keep only public addresses (all of them when
 * allowPrivate), fail with UrlRefused when none remain. Exported for tests.
 */
export function guardedLookup(allowPrivate: boolean, resolver?: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const cb = callback as (err: Error | null, address?: string | LookupAddress[], family?: number) => void;
    resolveOrRefuse(hostname, resolver ?? defaultResolver, options.family as number | undefined).then(
      (addresses) => {
        const usable = allowPrivate ? addresses : addresses.filter((a) => addressRefusal(a.address) === null);
        const first = usable[0];
        if (!first) return cb(new UrlRefused('non_public_address', NOT_ALLOWED));
        if (options.all) cb(null, usable);
        else cb(null, first.address, first.family);
      },
      (err: Error) => cb(err),
    );
  };
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const dispatchers = new Map<string, Agent>();

/**
 * An undici Agent that only connects to addresses guardedLookup let through (cached per
 * allowPrivate and connect timeout). IP-literal hosts never reach `lookup` (net.connect skips
 * it), so callers must run checkUrlShape on each URL before dispatching it.
 */
export function guardedDispatcher(opts: { allowPrivate: boolean; timeoutMs?: number }): Dispatcher {
  const timeout = opts.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const key = `${opts.allowPrivate}:${timeout}`;
  let agent = dispatchers.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(opts.allowPrivate), timeout } });
    dispatchers.set(key, agent);
  }
  return agent;
}
