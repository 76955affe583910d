import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import { env } from '../env.js';

// The client's address, for per-address limits (docs/security.md, "Client address").
//
// Behind reverse proxies, each of which appends the address it received the request from to
// X-Forwarded-For, the client is read from that header — but only what the proxies wrote:
// anything further left was written by the client itself and is ignored (rotating it must not
// give a fresh limit). Two ways to say who the proxies are:
// - TRUSTED_PROXIES (addresses and ranges): the header is read only when the socket's peer is
//   one of them, and the client is the right-most entry that is not (Express's "trust proxy"
//   with addresses). A client that reaches us directly cannot forge its address.
// - TRUST_PROXY=N (a count, kept for existing deployments): every peer is taken for a proxy and
//   the client is the entry N hops from the right, so a client that can reach us directly
//   chooses its address.
// An entry that is not an IP address means a proxy is misconfigured: the nearest address a
// trusted hop vouched for is used instead.
//
// IPv6 clients are counted by their /64 network: one host usually holds a whole /64, so
// counting single addresses would let it rotate through 2^64 of them.

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Who may write X-Forwarded-For: `hops` peers in a row (0: nobody), or the peers in `proxies`. */
export type ProxyTrust = { hops: number; proxies?: undefined } | { proxies: readonly Range[]; hops?: undefined };

/** The trust the environment configures (TRUSTED_PROXIES, else TRUST_PROXY; env.js refuses both). */
export function proxyTrust(config: { trustProxy: number; trustedProxies: readonly string[] }): ProxyTrust {
  if (config.trustedProxies.length > 0) return { proxies: config.trustedProxies.map(parseRange) };
  return { hops: config.trustProxy };
}

let configured: ProxyTrust | undefined;
export const configuredTrust = (): ProxyTrust =>
  (configured ??= proxyTrust({ trustProxy: env.TRUST_PROXY, trustedProxies: env.TRUSTED_PROXIES }));

/** `10.0.0.0/8`, `127.0.0.1` (a /32), `fd00::/8`; an IPv4-mapped range matches the IPv4 peers it maps. */
function parseRange(entry: string): Range {
  const [ip, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), -1] as const);
  const width = ip.kind() === 'ipv4' ? 32 : 128;
  const prefix = bits < 0 ? width : bits;
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    return [(ip as ipaddr.IPv6).toIPv4Address(), prefix - 96];
  }
  return [ip, prefix];
}

function inRanges(address: string, ranges: readonly Range[]): boolean {
  if (!isIP(address)) return false;
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address.split('%')[0]!);
  } catch {
    return false;
  }
  return ranges.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}

/** Whether a socket's peer is a reverse proxy: its X-Forwarded-For is read, its connections are not capped. */
export function isTrustedProxy(peer: string, trust: ProxyTrust = configuredTrust()): boolean {
  return trust.proxies ? inRanges(peer, trust.proxies) : trust.hops > 0;
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; IPv6 → its /64 prefix (`2001:db8:1:2::/64`); else as is. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head, tail] = address.split('%')[0]!.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::1.2.3.4) counts as two groups; only the first four groups matter here.
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(missing, 0)).fill('0'), ...right].map((g) => g.replace(/^0+(?=.)/, '').toLowerCase());
}

export function clientAddress(req: IncomingMessage, trust: ProxyTrust = configuredTrust()): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (trust.proxies ? !inRanges(peer, trust.proxies) : trust.hops <= 0) return addressKey(peer);
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // The chain as the last proxy sees it: [...X-Forwarded-For, peer].
  const chain = [...forwarded, peer];
  if (trust.proxies) {
    // From the right, past the proxies: the first address that is not one is the client.
    let client = peer;
    for (let i = chain.length - 2; i >= 0 && inRanges(client, trust.proxies); i--) {
      if (!isIP(chain[i]!)) break;
      client = chain[i]!;
    }
    return addressKey(client);
  }
  // The peer is trusted hop 1.
  const candidate = chain[chain.length - 1 - trust.hops] ?? chain[0]!;
  return addressKey(isIP(candidate) ? candidate : peer);
}
