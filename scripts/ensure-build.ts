// `npm run build`: the production dashboard build (`next build`), recording the fingerprint of
// its sources in .next/source-fingerprint so `npm start` knows the build is current.
// `--if-stale` builds only when the sources changed since the last build (or there is none).
// (`npm start` does the same check itself before serving the dashboard.)
// First: on an unsupported Node this says so and exits, before any dependency loads.
import '../server/node-version.js';
import os from 'node:os';
import { BuildInterruptedError, ensureBuild } from '../server/build-check';

const ifStale = process.argv.includes('--if-stale');

ensureBuild({ force: !ifStale }).then(
  (state) => {
    if (state === 'current') console.log('The dashboard build is up to date.');
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = err instanceof BuildInterruptedError ? 128 + os.constants.signals[err.signal] : 1;
  },
);
