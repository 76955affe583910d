// Where to go after signing in: only a path on this site, never another origin.
//
// The value is resolved the way a browser would resolve it (WHATWG URL: tabs and newlines
// dropped, `\` read as `/`), against a stand-in origin; it is kept only if it stays on that
// origin and cannot be read as protocol-relative (`//host`) once it is sent as a Location or
// given to the router. Control characters are refused outright (in a Location header they
// would be a 500, or worse a header injection).
const ORIGIN = 'http://callback.invalid';

export function safeCallbackPath(value: string | string[] | undefined | null, fallback = '/dashboard/keys'): string {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v || v.length > 2048 || !v.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(v)) return fallback;
  let url: URL;
  try {
    url = new URL(v, ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== ORIGIN) return fallback;
  const path = url.pathname + url.search + url.hash;
  return path.startsWith('//') ? fallback : path;
}
