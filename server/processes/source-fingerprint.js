// @ts-check
// What the production builds are made of, and a hash of it: the dashboard build (.next, by
// `next build`) and the precompiled server (server-bundle.js) are each current only for the
// sources they were built from. Plain JavaScript: `npm start`'s launcher (launch.js) checks it
// before any TypeScript can run.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What the builds are made of (missing entries are skipped). Test files are left out. */
export const BUILD_SOURCES = [
  'app',
  'server',
  'db',
  'public',
  'next.config.js',
  'package-lock.json',
  'patches',
  'tsconfig.json',
  'postcss.config.mjs',
  'middleware.ts',
  'proxy.ts',
  'instrumentation.ts',
];

const IS_TEST = /\.test\.tsx?$/;

/**
 * @param {string} root
 * @param {string} rel
 * @param {string[]} out
 */
function listFiles(root, rel, out) {
  const abs = path.join(root, rel);
  let stat;
  try {
    stat = fs.statSync(abs);
  } catch {
    return; // absent
  }
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(abs)) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      listFiles(root, path.posix.join(rel, name), out);
    }
  } else if (stat.isFile() && !IS_TEST.test(rel)) {
    out.push(rel);
  }
}

/**
 * A hash over the paths and contents of the build's sources: the same tree gives the same value.
 * @param {string} [root]
 * @returns {string}
 */
export function sourceFingerprint(root = process.cwd()) {
  /** @type {string[]} */
  const files = [];
  for (const source of BUILD_SOURCES) listFiles(root, source, files);
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const content = fs.readFileSync(path.join(root, file));
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}
