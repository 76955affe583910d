import { existsSync } from 'node:fs';
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
// Browsers: Playwright's own downloads are not available on our machines, so the Debian
// `chromium` package is used when present (apt-get install chromium); elsewhere Playwright's
// bundled Chromium (`npx playwright install chromium`) is used.

const PORT = Number(process.env.E2E_PORT ?? 3210);
const baseURL = `http://localhost:${PORT}`;
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
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
    command: `rm -rf .data/e2e && DATA_DIR=.data/e2e NODE_ENV=production PORT=${PORT} LOG_LEVEL=warn RATE_LIMIT_SIGNUPS_PER_HOUR=1000 SIGNUP_MODE=open WEBHOOK_ALLOW_PRIVATE_URLS=true node --max-semi-space-size=8 server/processes/launch.js`,
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    // A build of the dashboard (~30–60 s on 2 cores) when the sources changed, then the start.
    timeout: 300_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
