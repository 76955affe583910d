import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

// The repository stands alone: no comment or doc points at a file outside it. The design notes
// the project started from lived beside the repository, not in it, so a clone cannot open them;
// what the code relies on is written in docs/ (docs/api.md, docs/platform-notes.md…). This scans
// every tracked file for their names — as `<name>.md`, or the upper-case name alone, as in
// `DESIGN 6.2` — and names each file and line that still cites one.

const ROOT = path.resolve(import.meta.dirname, '..');
const SELF = path.relative(ROOT, import.meta.filename).split(path.sep).join('/');
/** The lock file lists packages, not our prose; this file names the notes to look for them. */
const SKIP = new Set(['package-lock.json', SELF]);

const NAMES = ['DESIGN', 'FINDINGS', 'reference', 'ANCHORS', 'STYLE'];
const AS_FILE = new RegExp(`\\b(?:${NAMES.join('|')})\\.md\\b`, 'i');
/** The notes' upper-case names alone (`DESIGN 6.2`, `(FINDINGS)`); `STYLE` alone is too common a word. */
const AS_WORD = /\b(?:DESIGN|FINDINGS|ANCHORS)\b/;

function trackedFiles(): string[] | null {
  try {
    const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

const files = trackedFiles();

describe('the repository stands alone', () => {
  it('cites no file outside it', { skip: files === null && 'not a git checkout' }, () => {
    const found: string[] = [];
    for (const file of files!) {
      if (SKIP.has(file)) continue;
      let text: string;
      try {
        text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      } catch {
        continue; // deleted in the work tree, not yet in the index
      }
      if (text.includes('\0')) continue; // binary
      text.split('\n').forEach((line, i) => {
        if (AS_FILE.test(line) || AS_WORD.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    assert.deepEqual(found, [], `cite docs/ instead (write the rule there if it is missing):\n${found.join('\n')}`);
  });
});
