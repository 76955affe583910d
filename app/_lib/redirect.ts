// Where to go after signing in: only a path on this site (never another origin).
export function safeCallbackPath(value: string | string[] | undefined | null, fallback = '/dashboard/keys'): string {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v || !v.startsWith('/') || v.startsWith('//') || v.startsWith('/\\')) return fallback;
  return v;
}
