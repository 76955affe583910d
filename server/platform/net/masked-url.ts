// URLs that are credentials (docs/security.md, "Secrets at rest"): a webhook endpoint or a tool's
// URL often carries its own credential — Slack's `…/services/T…/B…/<token>`, a `?api_token=…`,
// user info. What of a URL may be shown to someone who may not manage it: the scheme, the host and
// the path, with the query, the fragment, the user info and every path segment that looks like a
// token replaced by `****`. A URL with none of those is shown as it was given (and stored so).

export const URL_MASK = '****';

/** Long enough to be a token rather than a name (Slack's ids `T0AB12CD3` stay readable; its 24-character secret does not). */
const TOKEN_MIN = 16;
/** A segment this long is masked whatever it holds. */
const TOKEN_ALWAYS = 32;

/** A path segment that looks like a token: long, and mixing digits and letters or both cases (a random string does; `my-long-endpoint-name` does not). */
export function tokenLike(segment: string): boolean {
  if (segment.length < TOKEN_MIN) return false;
  if (segment.length >= TOKEN_ALWAYS) return true;
  const digit = /\d/.test(segment);
  const lower = /[a-z]/.test(segment);
  const upper = /[A-Z]/.test(segment);
  return (digit && (lower || upper)) || (lower && upper);
}

/**
 * The URL as someone who may not manage it sees it: `text` itself when it holds nothing to hide,
 * else the scheme, `****@` for user info, the host, the path with token-like segments as `****`,
 * and `?****`, `#****` for a query and a fragment. Not a URL at all: `****`.
 */
export function maskUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return URL_MASK;
  }
  const segments = url.pathname.split('/');
  const userinfo = url.username !== '' || url.password !== '';
  // The raw text: `https://x/y?` has an empty `search` but a `?` all the same.
  const query = text.includes('?');
  const fragment = text.includes('#');
  if (!userinfo && !query && !fragment && !segments.some(tokenLike)) return text;
  const path = segments.map((s) => (tokenLike(s) ? URL_MASK : s)).join('/');
  return `${url.protocol}//${userinfo ? `${URL_MASK}@` : ''}${url.host}${path}${url.search ? `?${URL_MASK}` : ''}${url.hash ? `#${URL_MASK}` : ''}`;
}

/** Whether the URL holds something `maskUrl` hides (then it is stored sealed). */
export const holdsCredentials = (text: string) => maskUrl(text) !== text;
