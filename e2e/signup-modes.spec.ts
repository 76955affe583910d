import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { PASSWORD, uniqueEmail } from './helpers';

// What the pages offer a visitor in each SIGNUP_MODE (docs/security.md, "Sign-up"): never a form
// that can only fail. The suite's own server runs with SIGNUP_MODE=open (its specs sign up many
// users); these tests start servers of their own on the dashboard the suite's server built: one
// with SIGNUP_MODE unset (the default, `invite`) and HOST unset (it listens on 127.0.0.1), one with
// SIGNUP_MODE=closed. They run with NODE_ENV=test, which serves the build as it is: a production
// start would build the dashboard again if a source changed since the run began, under the
// suite's running server.

interface Server {
  url: string;
  child: ChildProcess;
  output: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function startServer(name: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const dataDir = `.data/e2e-${name}`;
  fs.rmSync(dataDir, { recursive: true, force: true });
  // SIGNUP_MODE and HOST at their defaults unless `env` sets them.
  const { SIGNUP_MODE: _mode, HOST: _host, ...inherited } = process.env;
  const childEnv: NodeJS.ProcessEnv = { ...inherited, NODE_ENV: 'test', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env };
  const child = spawn(process.execPath, ['server/processes/launch.js'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const server: Server = { url: `http://127.0.0.1:${port}`, child, output: '' };
  child.stdout?.on('data', (c: Buffer) => (server.output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (server.output += c.toString()));
  await expect
    .poll(async () => (child.exitCode === null ? (await fetch(`${server.url}/readyz`).catch(() => null))?.status : `exited: ${server.output}`), { timeout: 60_000 })
    .toBe(200);
  return server;
}

/** A signed-out browser on `server`. */
async function visitor(browser: Browser, server: Server): Promise<Page> {
  return (await browser.newContext({ baseURL: server.url })).newPage();
}

/** Fills the sign-up form; `email` unless the page filled it in (an invitation's, locked). */
async function fillSignUp(page: Page, email?: string) {
  if (email !== undefined) await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
}

test.describe('SIGNUP_MODE unset (invite)', () => {
  let server: Server;
  test.beforeAll(async () => {
    server = await startServer('invite', {});
  });
  test.afterAll(() => {
    server?.child.kill('SIGTERM');
  });

  test('the first visitor creates the first account; the next is told to ask for an invitation; an invitation link lets them in', async ({ browser }) => {
    const first = await visitor(browser, server);
    await first.goto('/');
    await first.getByRole('link', { name: 'Create an account' }).click();
    await expect(first.getByText('You are the first on this server')).toBeVisible();
    const owner = uniqueEmail('first');
    await fillSignUp(first, owner);
    await expect(first).toHaveURL(/\/dashboard\/keys$/);

    // Anyone else: no form, no sign-up link, and what to do instead.
    const stranger = await visitor(browser, server);
    await stranger.goto('/');
    await expect(stranger.getByRole('link', { name: 'Create an account' })).toHaveCount(0);
    await stranger.goto('/signup');
    await expect(stranger.getByRole('heading', { name: 'Sign-up is by invitation' })).toBeVisible();
    await expect(stranger.getByText('Ask an owner or admin of a workspace on this server to invite your email address')).toBeVisible();
    await expect(stranger.getByLabel('Email', { exact: true })).toHaveCount(0);
    await stranger.goto('/signin');
    await expect(stranger.getByTestId('signin-no-signup')).toHaveText('No account yet? Ask an owner or admin of a workspace here to invite you.');

    // The owner invites; the invitee creates their account from the link and joins.
    await first.getByTestId('user-menu').click();
    await first.getByTestId('nav-members').click();
    await first.getByTestId('invite-member').click();
    const invitee = uniqueEmail('invitee');
    const dialog = first.getByTestId('invite-dialog');
    await dialog.getByLabel('Email address').fill(invitee);
    await dialog.getByLabel('Role').selectOption('developer');
    await dialog.getByTestId('invite-submit').click();
    const link = (await first.getByTestId('invite-link-value').textContent())!;
    expect(link.startsWith(`${server.url}/invite/`)).toBe(true);
    await stranger.goto(link);
    await stranger.getByTestId('invite-signup').click();
    await expect(stranger.getByText('Use the email address the invitation was sent to')).toBeVisible();
    await expect(stranger.getByLabel('Email', { exact: true })).toHaveValue(invitee.toLowerCase());
    await fillSignUp(stranger);
    await expect(stranger).toHaveURL(/\/invite\//);
    await stranger.getByTestId('invite-accept').click();
    await expect(stranger).toHaveURL(/\/dashboard\/agents$/);
  });
});

test.describe('SIGNUP_MODE=closed', () => {
  let server: Server;
  test.beforeAll(async () => {
    server = await startServer('closed', { SIGNUP_MODE: 'closed' });
  });
  test.afterAll(() => {
    server?.child.kill('SIGTERM');
  });

  test('even the first visitor is told the operator makes accounts; an invitation link offers sign-in only', async ({ browser }) => {
    const page = await visitor(browser, server);
    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Create an account' })).toHaveCount(0);
    await page.goto('/signup');
    await expect(page.getByRole('heading', { name: 'Sign-up is closed' })).toBeVisible();
    await expect(page.getByLabel('Email', { exact: true })).toHaveCount(0);
    await page.goto('/signin');
    await expect(page.getByTestId('signin-no-signup')).toHaveText('No account yet? Ask this server’s operator for one.');
    await page.goto(`/invite/${'x'.repeat(43)}`);
    await expect(page.getByTestId('invite-invalid')).toBeVisible();
    await expect(page.getByTestId('invite-signin')).toBeVisible();
    await expect(page.getByTestId('invite-signup')).toHaveCount(0);
  });
});
