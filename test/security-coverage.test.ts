import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BUILT_OPERATIONS } from './built-routes';

// Every /v1 operation that takes a key runs the shared security suite (test/security.ts): a
// route added without it fails here. Read from the test files' source: the suites are declared
// at module level as `securitySuite(…, { method: 'GET', path: '/v1/…', … })`.

/** Operations without the suite, and why. */
const EXEMPT: Record<string, string> = {
  'GET /v1/openapi.json': 'needs no key',
};

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) testFiles(p, out);
    else if (entry.name.endsWith('.int.test.ts')) out.push(p);
  }
  return out;
}

describe('the security suite', () => {
  it('runs on every operation that takes a key', () => {
    const covered = new Set<string>();
    for (const file of testFiles(import.meta.dirname)) {
      const source = fs.readFileSync(file, 'utf8');
      for (const call of source.split('securitySuite(').slice(1)) {
        const method = /method: '([A-Z]+)'/.exec(call)?.[1];
        // The path up to its query string, in quotes or backquotes (`/v1/analytics/requests?start=${…}`).
        const route = /path: [`']([^`'?]+)/.exec(call)?.[1];
        if (method && route) covered.add(`${method} ${route}`);
      }
    }
    const missing = BUILT_OPERATIONS.filter((op) => !covered.has(op) && !(op in EXEMPT));
    assert.deepEqual(missing, [], 'add a securitySuite(...) for these routes');
    for (const op of Object.keys(EXEMPT)) assert.ok(BUILT_OPERATIONS.includes(op), `${op} is exempt but not built`);
  });
});
