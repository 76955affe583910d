import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

// The client's address, for per-address limits. Behind `trustedProxies` proxies, each of which
// appends the address it received the request from to X-Forwarded-For, the client is the entry
// that many hops from the right: anything further left was written by the client itself and
// is ignored (rotating it must not give a fresh limit). An entry that is not an IP address
// means a proxy is misconfigured: the socket's peer is used instead.
//
// IPv6 clients are counted by their /64 network: one host usually holds a whole /64, so
// counting single addresses would let it rotate through 2^64 of them.

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

export function clientAddress(req: IncomingMessage, trustedProxies: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (trustedProxies <= 0) return addressKey(peer);
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // The chain as the last proxy sees it: [...X-Forwarded-For, peer]; the peer is trusted hop 1.
  const chain = [...forwarded, peer];
  const candidate = chain[chain.length - 1 - trustedProxies] ?? chain[0]!;
  return addressKey(isIP(candidate) ? candidate : peer);
}
