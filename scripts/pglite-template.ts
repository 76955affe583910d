// `npm ci`/`npm install` (postinstall) and `npm run build`: builds the embedded database's
// migrated template (db/pglite-template.ts) when there is none for these migrations, so the first
// `npm start` makes its data dir by a copy (~4–5 s to /v1 answering, instead of 14–18 s building
// the template first). Skipped with DATABASE_URL (PostgreSQL needs none). Never fails the
// install or the build: a template not made here is made by the first start.
// First: on an unsupported Node this says so and exits, before any dependency loads.
import '../server/processes/node-version.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_TEMPLATE_DIR, ensureTemplate } from '../db/pglite-template';
import { PGLITE_START_PARAMS } from '../db/pglite-init';

/** Builds the template if needed; resolves with one line saying what happened. */
export async function prepareTemplate(): Promise<string> {
  if (process.env.DATABASE_URL) return 'DATABASE_URL is set: no embedded database template needed';
  const dir = process.env.PGLITE_TEMPLATE_DIR || DEFAULT_TEMPLATE_DIR;
  try {
    const { built } = await ensureTemplate({ dir, startParams: PGLITE_START_PARAMS });
    return built
      ? `embedded database template built in ${built.total} ms (initdb ${built.initdb} ms, migrations ${built.migrations} ms, pg-boss ${built.jobs} ms) in ${dir}`
      : `embedded database template is current (${dir})`;
  } catch (err) {
    return `the embedded database template was not built (${err instanceof Error ? err.message : String(err)}); npm start will make it`;
  }
}

// Run as a script (the postinstall), not imported (scripts/ensure-build.ts).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) console.log(await prepareTemplate());
