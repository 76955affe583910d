// @ts-check
import fs from 'node:fs';

// A test reporter for `npm test` (scripts/test.ts): each file's wall time, from the runner's
// event for the file as a whole (`{file, ms}`), and each of its top-level tests' time under the
// source file they were declared in (`{source, ms}`: a compiled file's tests name their source),
// written as JSON lines to FILE_DURATIONS_OUT. Plain JavaScript:
// the runner loads it without tsx when it runs the compiled tests (scripts/test-bundle.ts).

/** @param {AsyncIterable<{ type: string, data: { name?: string, nesting?: number, details?: { duration_ms?: number } } }>} source */
export default async function* fileDurations(source) {
  const out = process.env.FILE_DURATIONS_OUT;
  for await (const event of source) {
    const { name, nesting, details, file } = /** @type {typeof event.data & { file?: string }} */ (event.data ?? {});
    if (event.type !== 'test:complete' || nesting !== 0 || details?.duration_ms === undefined || !out) continue;
    const ms = Math.round(details.duration_ms);
    // The file itself is the top-level test named by its path (process isolation).
    if (/\.test\.m?[jt]s$/.test(name ?? '')) fs.appendFileSync(out, `${JSON.stringify({ file: name, ms })}\n`);
    else if (file) fs.appendFileSync(out, `${JSON.stringify({ source: file, ms })}\n`);
  }
  yield '';
}
