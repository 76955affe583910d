// @ts-check
// `npm start` (`node server/processes/launch.js`) and `npm run worker` (`node server/processes/launch.js worker`):
// checks the Node version, makes sure the compiled server matches the sources (compiling it
// when they changed: server-bundle.js), then runs it in this same process — so a process
// manager's signals reach the server itself. Plain JavaScript with only Node's own modules
// until the server is imported, so it runs before, and without, any TypeScript loader.
import './node-version.js';
import module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureServerBundle } from './server-bundle.js';
import { sourceFingerprint } from './source-fingerprint.js';

const entry = process.argv[2] ?? 'main';
if (entry !== 'main' && entry !== 'worker') {
  process.stderr.write(`usage: node server/processes/launch.js [main|worker] (not '${entry}')\n`);
  process.exit(2);
}

// V8's compiled code of every module (node_modules included), kept between starts: about
// 0.3 s of CPU less per start. Validated against each file's content by Node itself.
module.enableCompileCache?.(path.resolve('.next/cache/node-compile'));
process.setSourceMapsEnabled(true);

const checking = performance.now();
const fingerprint = sourceFingerprint();
let bundle;
try {
  bundle = await ensureServerBundle({ fingerprint });
} catch (err) {
  // esbuild has printed the errors in the sources.
  process.stderr.write(`The server could not be compiled: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
  process.exit(1);
}

/** What the server logs as its first start-up phases (startup.ts reads it). */
const launch = {
  fingerprint,
  serverBundle: { built: bundle.built, ms: performance.now() - checking },
  codeLoadStartedAt: performance.now(),
};
/** @type {Record<symbol, unknown>} */ (globalThis)[Symbol.for('agent-service.launch')] = launch;
await import(pathToFileURL(path.join(bundle.dir, `${entry}.mjs`)).href);
