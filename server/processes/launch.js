// @ts-check
// `npm start` (`node server/processes/launch.js`), `npm run worker` (`node server/processes/launch.js worker`)
// and `npm run admin` (`node server/processes/launch.js admin <command> …`, the admin CLI):
// checks the Node version, makes sure the compiled server matches the sources (compiling it
// when they changed: server-bundle.js), then runs it in this same process — so a process
// manager's signals reach the server itself. Plain JavaScript with only Node's own modules
// until the server is imported, so it runs before, and without, any TypeScript loader.
import './node-version.js';
import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureServerBundle } from './server-bundle.js';
import { sourceFingerprint } from './source-fingerprint.js';

const entry = process.argv[2] ?? 'main';
if (entry !== 'main' && entry !== 'worker' && entry !== 'admin') {
  process.stderr.write(`usage: node server/processes/launch.js [main|worker|admin …] (not '${entry}')\n`);
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

// `.next/package.json` says `{"type": "commonjs"}` before anything loads from `.next/`. `next
// build` writes it, and the dashboard's compiled pages are CommonJS `.js` files. Node reads a
// file's package.json once per process and remembers one that is missing. Importing the bundle
// below (it lives in `.next/cache/server/`) made Node look for `.next/package.json`. On a fresh
// clone the dashboard is then built by this same process, but Node still took the pages for ES
// modules, as this project's package.json says. Every dashboard page answered 500 ("require is
// not defined in ES module scope") until the next start (docs/decisions.md, "Start-up").
const NEXT_PACKAGE = path.resolve('.next', 'package.json');
if (!fs.existsSync(NEXT_PACKAGE)) {
  fs.mkdirSync(path.dirname(NEXT_PACKAGE), { recursive: true });
  fs.writeFileSync(NEXT_PACKAGE, '{"type": "commonjs"}');
}

/** What the server logs as its first start-up phases (startup.ts reads it). */
const launch = {
  fingerprint,
  serverBundle: { built: bundle.built, ms: performance.now() - checking },
  codeLoadStartedAt: performance.now(),
};
/** @type {Record<symbol, unknown>} */ (globalThis)[Symbol.for('agent-service.launch')] = launch;
await import(pathToFileURL(path.join(bundle.dir, `${entry}.mjs`)).href);
