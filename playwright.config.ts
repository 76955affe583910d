import { existsSync } from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

// End-to-end tests of the dashboard in a real browser against the real production server.
//
// `npm run test:e2e` builds first (`npm run build`, which records the sources' fingerprint): the
// web server below starts the production server (`NODE_ENV=production`), which serves that build
// (it would rebuild a stale one, slower than the start-up timeout allows).
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
    // Every test signs up from 127.0.0.1: the per-address sign-up limit is raised for the run.
    command: `rm -rf .data/e2e && DATA_DIR=.data/e2e NODE_ENV=production PORT=${PORT} LOG_LEVEL=warn RATE_LIMIT_SIGNUPS_PER_HOUR=1000 WEBHOOK_ALLOW_PRIVATE_URLS=true npx tsx server/processes/main.ts`,
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
