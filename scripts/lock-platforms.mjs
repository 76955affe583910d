// Keeps package-lock.json acceptable to `npm ci` on our machines. The npm registry mirror we
// install from lacks other platforms' optional native packages (darwin/win32/android… builds of
// next-swc, tailwind oxide, unrs), so `npm install` leaves them out of the lock and `npm ci`
// then refuses the lock as out of sync. This adds each missing optional package back with its
// os/cpu, which is all npm needs to skip it on a platform it does not match.
// Run after `npm install` changes the lock: `node scripts/lock-platforms.mjs`.
// @ts-check
import fs from 'node:fs';

const LOCK = 'package-lock.json';
const lock = JSON.parse(fs.readFileSync(LOCK, 'utf8'));
/** @type {Record<string, {version?: string, optionalDependencies?: Record<string, string>} & Record<string, unknown>>} */
const packages = lock.packages;

const OS = ['android', 'darwin', 'freebsd', 'linux', 'win32', 'openharmony', 'wasm32'];
/** @type {Record<string, string>} */
const CPU = { arm64: 'arm64', x64: 'x64', ia32: 'ia32', arm: 'arm', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x', wasm32: 'wasm32' };

/** @param {string} name */
function platformOf(name) {
  const parts = (name.split('/').pop() ?? '').split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (os === 'wasm32' || cpu === 'wasm32') return { cpu: ['wasm32'] };
  if (!os || !cpu) return null;
  return { os: [os], cpu: [cpu] };
}

let added = 0;
for (const [path, pkg] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[base] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    packages[`node_modules/${dep}`] = { version, optional: true, ...platform };
    added++;
  }
}
fs.writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: added ${added} optional platform packages`);
