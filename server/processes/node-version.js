// @ts-check
// The Node.js version check every entry point (npm start, npm run dev, npm run worker, the
// admin CLI, npm run db:migrate, npm run build) runs before anything else. On an older Node the
// dependencies do not fail cleanly: `npm ci` only warns (EBADENGINE), and `npm start` on Node 20
// crashed deep inside undici (a zstd API Node 20 lacks) with no word about the version.
//
// Imported first by the entry files (an ES module's imports are evaluated in order, so this
// exits before the next import runs), and run as `node server/processes/node-version.js` by `npm run dev`
// before tsx's watcher, which would otherwise keep waiting after its child exited. Plain
// JavaScript with no imports and nothing newer than ES2015, so any Node can parse and run it.

export const REQUIRED = { major: 22, minor: 19 };

/**
 * Whether `version` ("22.12.0", "v20.20.2") is at least REQUIRED.
 * @param {string} version
 */
export function supported(version) {
  const [major = 0, minor = 0] = String(version).replace(/^v/, '').split('.').map(Number);
  return major > REQUIRED.major || (major === REQUIRED.major && minor >= REQUIRED.minor);
}

/**
 * What to tell someone running `version` at `execPath`.
 * @param {string} version
 * @param {string} execPath
 */
export function unsupportedMessage(version, execPath) {
  return [
    `This service needs Node.js >= ${REQUIRED.major}.${REQUIRED.minor} (Node 24 LTS recommended); this is Node ${version} (${execPath}).`,
    'Install Node 24 LTS from https://nodejs.org/en/download (or with a version manager: `nvm install 24`, `fnm install 24`),',
    'make it the `node` on your PATH, and run the command again.',
  ].join('\n');
}

if (!supported(process.versions.node)) {
  process.stderr.write(`${unsupportedMessage(process.versions.node, process.execPath)}\n`);
  process.exit(1);
}
