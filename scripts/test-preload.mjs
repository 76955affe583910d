// @ts-check
import fs from 'node:fs';

// Loaded into every test process by `npm test` (scripts/test.ts, `--import`). Plain JavaScript:
// the runner loads it without tsx.
//
// TEST_CPU_OUT=<file>: when the process exits, one JSON line with the file it ran and the CPU it
// used, its own and that of the child processes it waited for (servers, CLIs, npm), read from
// /proc/self/stat (utime, stime, cutime, cstime, in clock ticks of 10 ms).
const out = process.env.TEST_CPU_OUT;
if (out && process.argv[1] && fs.existsSync('/proc/self/stat')) {
  const file = process.argv[1];
  process.once('exit', () => {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
    // After "pid (comm) ", field 3 (state) is index 0: utime is field 14 → index 11.
    const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15).map((n) => Number(n) * 10);
    fs.appendFileSync(out, `${JSON.stringify({ file, own: utime + stime, children: cutime + cstime })}\n`);
  });
}

