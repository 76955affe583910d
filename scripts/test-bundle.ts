import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { externalPackages } from '../server/processes/server-bundle.js';

// `npm test` runs every test file in a process of its own. Loaded through tsx, a file's ~420
// modules cost about 1 s of CPU before its first test (tsx lexes and looks up every module it
// loads, drizzle's ~200 modules load one by one); compiled by esbuild first, 0.3 s. So the test
// files are compiled together, once per run, the way `npm start` compiles the server
// (server/processes/server-bundle.js, whose package rule it uses): our code bundled with code
// splitting (each process loads its file and the chunks it shares with the others, so a module is
// still one instance per process), packages external except drizzle-orm. `TEST_BUNDLE=0` runs the sources through tsx.
//
// A bundled module no longer sits where its source does, so `import.meta.dirname`, `.filename`
// and `.url` are replaced by the source file's own values, as the tests read files next to them.

/** `import.meta.dirname`/`filename`/`url` of our sources, as their own files' values. */
const sourcePlugin: Plugin = {
  name: 'test-sources',
  setup(build) {
    build.onLoad({ filter: /\.(ts|tsx|js|mjs)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = fs.readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const contents = text
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.url', JSON.stringify(new URL(`file://${args.path}`).href));
      const ext = path.extname(args.path).slice(1);
      return { contents, loader: ext === 'mjs' ? 'js' : (ext as 'ts' | 'tsx' | 'js') };
    });
  },
};

/**
 * Compiles `files` (paths relative to `root`) into `outdir`, keeping their relative paths with
 * `.mjs` for `.ts`. Returns each source's compiled file (relative to `root`).
 */
export async function bundleTests(root: string, files: string[], outdir: string): Promise<Map<string, string>> {
  const { build } = await import('esbuild');
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: files,
    outbase: root,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: '_chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node22',
    jsx: 'automatic',
    plugins: [externalPackages, sourcePlugin],
    // Failures point at the TypeScript (the runner is started with --enable-source-maps);
    // class names stay as written (tests and logs read an error's constructor name).
    sourcemap: 'linked',
    // Without the sources inside (the maps' mappings are what a stack trace needs): Node parses
    // the map of every chunk a process loads, ~0.1 s of CPU a process with the sources in them.
    sourcesContent: false,
    keepNames: true,
    logLevel: 'error',
  });
  const rel = path.relative(root, outdir);
  return new Map(files.map((f) => [f, path.join(rel, f.replace(/\.tsx?$/, '.mjs'))]));
}
