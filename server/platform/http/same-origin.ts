// Whether a browser sent a request from this site's own pages (docs/security.md, "Dashboard
// accounts"). The dashboard's session cookie is SameSite=Lax: a page of another site cannot send
// it with a POST, but a page of the same *site* can (another subdomain or port of the same
// registrable domain, e.g. a tenant's page or a compromised neighbour). Browsers name the page
// that sent a request in `Origin` (every POST) and `Sec-Fetch-Site`, and no page can forge
// either; so a state-changing request is refused when
//   - `Origin` is present and is not this site's own origin (`null` included: sandboxed frames,
//     `data:` pages), or
//   - `Sec-Fetch-Site` is present and is not `same-origin` (or `none`: typed by the user).
// A request with neither comes from no browser (a script, curl): there is no victim's browser to
// ride, and the cookie it holds is its own.
//
// This site's own origin: the public URL when the operator set one (NEXTAUTH_URL, which next-auth
// reads too), and the host the request was sent to — `Host`, which the browser writes (a page
// cannot choose it: it is the host the request goes to), and, when trusted proxies are
// configured (TRUST_PROXY), `X-Forwarded-Host`, which a proxy that rewrites `Host` writes.
// Without a trusted proxy `X-Forwarded-Host` is the client's own text and is ignored. Against
// `Host` the scheme is not compared (a proxy ending TLS turns https into http); against the
// public URL it is.

export interface SameOriginOptions {
  /** The site's public URL (scheme, host, port), when configured. */
  publicUrl?: string;
  /** How many proxies in front are trusted (TRUST_PROXY): above 0, `X-Forwarded-Host` counts. */
  trustProxy: number;
}

type HeaderSource = { get(name: string): string | null };

const hostOf = (value: string): string | null => {
  try {
    return new URL(`http://${value.trim()}`).host;
  } catch {
    return null;
  }
};

/** The hosts (`name[:port]`, as URL.host writes them) this request was addressed to. */
function ownHosts(headers: HeaderSource, trustProxy: number): Set<string> {
  const hosts = new Set<string>();
  const add = (value: string | null) => {
    const host = value ? hostOf(value) : null;
    if (host) hosts.add(host);
  };
  add(headers.get('host'));
  if (trustProxy > 0) for (const value of (headers.get('x-forwarded-host') ?? '').split(',')) add(value);
  return hosts;
}

/** Why a state-changing request is not from this site's own pages, or null when it may be. */
export function crossSiteReason(headers: HeaderSource, opts: SameOriginOptions): string | null {
  const fetchSite = headers.get('sec-fetch-site')?.trim().toLowerCase();
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return `Sec-Fetch-Site is ${fetchSite.slice(0, 20)}`;
  const origin = headers.get('origin')?.trim();
  if (origin === undefined) return null;
  let parsed: URL | null = null;
  try {
    parsed = origin === 'null' ? null : new URL(origin);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return 'its Origin is not a web origin';
  if (opts.publicUrl && new URL(opts.publicUrl).origin === parsed.origin) return null;
  return ownHosts(headers, opts.trustProxy).has(parsed.host) ? null : 'its Origin is not this site';
}
