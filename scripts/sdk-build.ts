// Builds the typed client (sdk/, docs/sdk.md) into sdk/dist (or `outDir`): `tsc -p sdk/tsconfig.json`.
// The root `npm run build` runs it, as `npm run build` in sdk/ does.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function buildSdk(outDir?: string): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const args = [tsc, '-p', path.join(root, 'sdk', 'tsconfig.json'), ...(outDir ? ['--outDir', outDir] : [])];
  try {
    await promisify(execFile)(process.execPath, args, { cwd: root });
  } catch (err) {
    const out = (err as { stdout?: string }).stdout ?? '';
    throw new Error(`The SDK build failed:\n${out || (err as Error).message}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await buildSdk();
  console.log('built sdk/dist');
}
