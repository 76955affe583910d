// JSON Schemas that cost the compiler: what a tenant can send within the 16 KB limit of a
// tool's `parameters` (docs/security.md, "Schemas are compiled off the event loop").

/**
 * About 15 KB using `$dynamicRef` and `unevaluatedProperties` (ajv compiles it in ~50–170 ms,
 * depending on the machine); `seed` makes each one distinct, so no cache can answer for it.
 */
export function heavySchema(seed: string, anchors = 66): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < anchors; i++) {
    defs[`d${i}`] = {
      $dynamicAnchor: `a${i}`,
      type: 'object',
      properties: { [`k${i}`]: { type: 'string' }, next: { $dynamicRef: `#a${(i + 1) % anchors}` } },
      allOf: [{ properties: { [`m${i}`]: { type: 'number' } } }],
      unevaluatedProperties: false,
    };
  }
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < anchors; i++) properties[`p${i}`] = { $dynamicRef: `#a${i}` };
  return { $id: `https://schemas.example.com/${seed}`, type: 'object', $defs: defs, properties, unevaluatedProperties: false, description: seed };
}
