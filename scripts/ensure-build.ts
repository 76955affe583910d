// Before `npm start`: build the dashboard once if there is no production build yet, so the
// quick start is one command on a fresh clone. After pulling new code, run `npm run build`.
import { execSync } from 'node:child_process';
import fs from 'node:fs';

if (!fs.existsSync('.next/BUILD_ID')) {
  console.log('No production build found: running `next build` once (about a minute)…');
  execSync('npx next build', { stdio: 'inherit' });
}
