import { existsSync, readFileSync } from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

// End-to-end tests of the dashboard in a real browser against the real production server.
//
// The web server below starts the server the way `npm start` does (server/processes/launch.js,
// `NODE_ENV=production`): compiled, and building the dashboard first when its sources changed
// since the last build. On a fresh clone that is the README's first `npm start`: the build runs
// inside the server's own process before it serves. That path once answered 500 on every page
// until a restart (server/processes/launch.js says why), and the suite now goes through it.
// Each run starts from an empty embedded database in .data/e2e.
//
// Browsers: Playwright's own downloads are not available on our machines, so Debian's Chromium
// is used when present: its headless shell (apt-get install chromium-headless-shell), the same
// Blink without the browser's UI and GPU processes — what Playwright itself runs headless — or
// else the full browser (apt-get install chromium); elsewhere Playwright's bundled Chromium (`npx
// playwright install chromium`). Measured on a 2-core machine, nine specs: 100 s with the full
// browser, 88 s with the shell.
//
// Two workers: two spec files at once against the one server (every test signs up a user of its
// own). The machine was 94 % busy with one, but a test waits on the server and the server on the
// browser: 88 → 75 s for the same nine specs (three workers: no faster).
//
// No trace unless E2E_TRACE=1: Playwright's trace, even kept only on a failure, is recorded for
// every test (a screencast and a DOM snapshot at each action), and it was half of the suite's
// CPU: the nine specs took 88 s with it, 57 s with its DOM snapshots alone, 47 s without
// (Chromium's CPU 106 → 36 s). A failure still leaves its screenshot and the page's snapshot
// (error-context.md) in test-results/; E2E_TRACE=1 npm run test:e2e records traces to replay.

const PORT = Number(process.env.E2E_PORT ?? 3210);
const baseURL = `http://localhost:${PORT}`;
const SYSTEM_CHROMIUM = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p));

/** The node flags of `npm start` (package.json), so the server runs as `npm start` runs it. */
const START_FLAGS = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((w) => w.startsWith('--'))
  .join(' ');

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    baseURL,
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: SYSTEM_CHROMIUM,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--no-first-run',
            '--disable-sync',
          ],
        },
      },
    },
  ],
  webServer: {
    // Every test signs up from 127.0.0.1: the per-address sign-up limit is raised for the run, and
    // sign-up is open (the default, `invite`, lets in the first account alone: its pages are
    // tested on servers of their own, e2e/signup-modes.spec.ts).
    command: `rm -rf .data/e2e && DATA_DIR=.data/e2e NODE_ENV=production PORT=${PORT} LOG_LEVEL=warn RATE_LIMIT_SIGNUPS_PER_HOUR=1000 SIGNUP_MODE=open WEBHOOK_ALLOW_PRIVATE_URLS=true node ${START_FLAGS} server/processes/launch.js`,
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    // A build of the dashboard (~30–60 s on 2 cores) when the sources changed, then the start.
    timeout: 300_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
