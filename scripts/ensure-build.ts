// `npm run build`: the production dashboard build (`next build`), recording the fingerprint of
// its sources in .next/source-fingerprint so `npm start` knows the build is current, and the
// compiled server `npm start` runs (server/processes/server-bundle.js), and (without DATABASE_URL)
// the embedded database's migrated template that a new data dir copies (db/pglite-template.ts).
// `--if-stale` builds only when the sources changed since the last build (or there is none).
// (`npm start` does the same checks itself before serving.) Then the typed client, sdk/ → sdk/dist
// (docs/sdk.md).
// First: on an unsupported Node this says so and exits, before any dependency loads.
import '../server/processes/node-version.js';
import os from 'node:os';
import { BuildInterruptedError, ensureBuild } from '../server/processes/build-check';
import { ensureServerBundle } from '../server/processes/server-bundle.js';
import { sourceFingerprint } from '../server/processes/source-fingerprint.js';
import { prepareTemplate } from './pglite-template';
import { buildSdk } from './sdk-build';

const ifStale = process.argv.includes('--if-stale');

async function main() {
  const fingerprint = sourceFingerprint();
  // The template's build runs in a process of its own, beside next build's; it never fails the build.
  const template = prepareTemplate().then((line) => console.log(line));
  const [state] = await Promise.all([ensureBuild({ force: !ifStale, fingerprint }), ensureServerBundle({ fingerprint }), buildSdk(), template]);
  if (state === 'current') console.log('The dashboard build is up to date.');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = err instanceof BuildInterruptedError ? 128 + os.constants.signals[err.signal] : 1;
});
