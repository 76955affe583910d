// The shape of the service's identifiers (`key_01JD…`: a prefix and a ULID), without what makes
// them (ids.ts): what the API schemas check cursors with, also in the browser.

export const ID_PREFIXES = ['usr', 'ws', 'key', 'agt', 'exe', 'conv', 'whk', 'evt', 'dlv', 'msg', 'req', 'sch', 'bdg', 'aud', 'inv', 'dst', 'dsi', 'exp', 'evr'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const patterns = new Map<IdPrefix, RegExp>(ID_PREFIXES.map((p) => [p, new RegExp(`^${p}_${ULID}$`)]));

/** True when `value` is a well-formed id of the given kind. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return patterns.get(prefix)!.test(value);
}
