// @ts-check
// The server as `npm start` and `npm run worker` run it: server/processes/main.ts and server/processes/worker.ts
// compiled by esbuild into plain ES modules (our code bundled, with a chunk the two share),
// one directory per source fingerprint under .next/cache/server/ (`next build` keeps
// .next/cache). Running the TypeScript through tsx at every start instead cost about 1.3 s of
// CPU out of 4 (tsx lexes every module it loads, node_modules included, and looks each up in
// its cache): the largest part of a warm start (docs/decisions.md, "Start-up"). `npm run dev`
// and the tests still run the sources through tsx.
//
// Packages stay external (loaded from node_modules as always: one copy per process, shared
// with Next's server, which keeps the stateful ones external too), except drizzle-orm: some
// 200 ES modules that cost 0.4–0.5 s of CPU to load one by one, one module once inlined. Two
// copies of drizzle in a process are fine (Next's bundles already carry their own, and drizzle
// recognises its objects across copies by a global symbol).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SERVER_BUNDLE_DIR = path.join('.next', 'cache', 'server');
/** Written last: a directory without it is not a finished bundle. */
const COMPLETE = 'complete';
const ENTRIES = { main: 'server/processes/main.ts', worker: 'server/processes/worker.ts', admin: 'server/processes/admin.ts' };

/**
 * The directory holding `main.mjs`, `worker.mjs` and `admin.mjs` compiled from the sources of `fingerprint`,
 * compiled first when there is none (a second or two). Several processes may start at once:
 * each compiles into a directory of its own and renames it into place; the first wins.
 * @param {{ fingerprint: string, root?: string }} opts
 * @returns {Promise<{ dir: string, built: boolean }>}
 */
export async function ensureServerBundle({ fingerprint, root = process.cwd() }) {
  const base = path.join(root, SERVER_BUNDLE_DIR);
  const dir = path.join(base, fingerprint);
  if (fs.existsSync(path.join(dir, COMPLETE))) return { dir, built: false };
  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const { build } = await import('esbuild');
    await build({
      absWorkingDir: root,
      entryPoints: ENTRIES,
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      plugins: [externalPackages],
      // Stack traces point at the TypeScript (launch.js turns source maps on). Names are kept as
      // written without esbuild's `keepNames`: nothing is minified, and the one renaming esbuild
      // does — two modules' top-level names that collide — touches no class
      // (test/server-bundle.test.ts; logged errors carry their constructor's name). `keepNames`
      // wrapped every named function and class in a `__name` call, closures made per request
      // and per run included: 0.8–1.6 % of a busy server's CPU (docs/benchmark.md, "Issue 49,
      // tenth session").
      sourcemap: 'linked',
      logLevel: 'error',
    });
    fs.writeFileSync(path.join(tmp, COMPLETE), '');
    fs.renameSync(tmp, dir);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    // Another process finished the same bundle first: use it.
    if (!fs.existsSync(path.join(dir, COMPLETE))) throw err;
    return { dir, built: false };
  }
  prune(base, fingerprint);
  return { dir, built: true };
}

/** Packages compiled into the bundle; every other bare import is left to Node. */
const INLINE = /^drizzle-orm(\/|$)/;

/**
 * Leaves packages to node_modules, except those of INLINE; `@/…` is the project's own path alias
 * (tsconfig.json), resolved by esbuild. Also used by the tests' build (scripts/test-bundle.ts).
 * @type {import('esbuild').Plugin}
 */
export const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@/') || INLINE.test(args.path) ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Removes the bundles of other sources and what a process that died while compiling left
 * (never another live process's directory in progress). Running servers are not affected:
 * their code was loaded at start.
 * @param {string} base
 * @param {string} keep
 */
function prune(base, keep) {
  for (const name of fs.readdirSync(base)) {
    if (name === keep) continue;
    const pid = /\.tmp-(\d+)-/.exec(name)?.[1];
    if (pid && alive(Number(pid))) continue;
    fs.rmSync(path.join(base, name), { recursive: true, force: true });
  }
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}
