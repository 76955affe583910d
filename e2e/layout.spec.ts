import { expect, test, type Locator, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, openSection, PASSWORD, shot, signUp, uniqueEmail } from './helpers';

// Issue 26: the keys table, the header's workspace name, the home page's header and the secret
// dialog's curl, at a laptop's 1280 px (1440 for the table) and a phone's 390 px.

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };
const DESKTOP = { width: 1440, height: 900 };
const VIEWPORTS = [PHONE, LAPTOP, DESKTOP] as const;

const LONG_NAMES = [
  'Billing reconciliation nightly export for the finance data warehouse (production)',
  'deploy-pipeline-customer-facing-invoicing-backend-eu-west-1-blue-green',
  'ProductionBillingReconciliationNightlyExportForTheFinanceDataWarehouse',
];

/** How many line boxes a text renders on (1: it does not wrap); `part`, when given, is measured alone. */
function lineCount(el: Locator, part?: string): Promise<number> {
  return el.evaluate((node, text) => {
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    if (text) {
      for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        const at = t.textContent!.indexOf(text);
        if (at < 0) continue;
        range.setStart(t, at);
        range.setEnd(t, at + text.length);
        break;
      }
    } else range.selectNodeContents(node);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  }, part);
}

/** The element shows all its content: nothing clipped sideways. */
async function expectNotClipped(el: Locator): Promise<void> {
  expect(await el.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
}

/** `inner`'s box lies within `outer`'s. */
async function expectWithin(inner: Locator, outer: Locator): Promise<void> {
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()];
  expect(a && b).toBeTruthy();
  expect(a!.x).toBeGreaterThanOrEqual(b!.x);
  expect(a!.x + a!.width).toBeLessThanOrEqual(b!.x + b!.width + 0.5);
}

/** The keys table is no wider than the box it sits in (nothing to scroll, nothing cut off), and each row's Revoke is in reach. */
async function expectKeysFit(page: Page): Promise<void> {
  await expectNoHorizontalScroll(page);
  const table = page.getByTestId('keys-table');
  const frame = table.locator('xpath=..');
  expect(await table.evaluate((t) => t.scrollWidth <= t.parentElement!.clientWidth)).toBe(true);
  await expectNotClipped(frame);
  for (const row of await page.getByTestId('key-row').all()) {
    const revoke = row.getByRole('button', { name: /^Revoke / });
    await revoke.scrollIntoViewIfNeeded();
    await expect(revoke).toBeInViewport({ ratio: 1 });
    await expectWithin(revoke, frame);
    // The name is readable in full (it wraps rather than being cut).
    await expectNotClipped(row.locator('td').first());
  }
}

/** Signs up with `name`, which makes the workspace "<name>'s workspace". */
async function signUpNamed(page: Page, name: string): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Name (optional)').fill(name);
  await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('layout-long'));
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard\/keys$/);
}

for (const viewport of VIEWPORTS) {
  const at = `at ${viewport.width}px`;

  test.describe(at, () => {
    test.use({ viewport });

    test(`${at} the keys table fits its card and every row's Revoke is in reach`, async ({ page, request }) => {
      await signUp(page, 'layout-keys');
      const secret = await createKey(page, 'Provisioner', ['keys:manage', 'webhooks:manage']);
      await page.getByTestId('secret-done').click();
      const scopes = ['agents:read', 'agents:write', 'agents:execute', 'keys:manage', 'webhooks:manage', 'analytics:read'];
      const expiresAt = new Date(Date.now() + 90 * 86_400_000).toISOString();
      for (const name of LONG_NAMES) {
        const res = await request.post('/v1/keys', { headers: { Authorization: `Bearer ${secret}` }, data: { name, scopes, expiresAt } });
        expect(res.status()).toBe(201);
      }
      await page.reload();
      const rows = page.getByTestId('key-row');
      await expect(rows).toHaveCount(LONG_NAMES.length + 1);
      await expectKeysFit(page);
      for (const name of LONG_NAMES) await expect(rows.filter({ hasText: name })).toHaveCount(1);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, `layout-keys-${viewport.width}`);
      if (viewport === LAPTOP) {
        // A smaller laptop too (the table drops its Created column there).
        await page.setViewportSize({ width: 1024, height: 768 });
        await expect(page.getByRole('columnheader', { name: 'Created' })).toBeHidden();
        await expectKeysFit(page);
        await page.setViewportSize(LAPTOP);
      }

      // Revoke is reachable and works for a long-named key.
      await rows.filter({ hasText: LONG_NAMES[1] }).getByRole('button', { name: /^Revoke / }).click();
      await page.getByTestId('revoke-confirm').click();
      await expect(rows).toHaveCount(LONG_NAMES.length);
    });

    test(`${at} the header shows the workspace's name`, async ({ page }) => {
      await signUp(page, 'layout-header');
      const name = page.getByTestId('workspace-name');
      const header = page.locator('header').first();
      for (const section of ['keys', 'agents', 'executions', 'usage', 'budgets', 'webhooks', 'events']) {
        await openSection(page, section);
        await expect(page).toHaveURL(new RegExp(`/dashboard/${section}$`));
        await expect(name).toHaveText("E2E Tester's workspace");
        await expect(name).toBeInViewport({ ratio: 1 });
        await expectNotClipped(name);
        await expectNotClipped(header);
        await expectNoHorizontalScroll(page);
      }
      await shot(page, `layout-header-${viewport.width}`);
    });

    test(`${at} a very long workspace name is cut with an ellipsis but keeps its room`, async ({ page }) => {
      const long = 'Maximiliana Konstantinopoulou-Vanderbilt of the Northern Infrastructure Platform Group';
      await signUpNamed(page, long);
      const name = page.getByTestId('workspace-name');
      await expect(name).toHaveAttribute('title', `${long}'s workspace`);
      await expect(name).toBeInViewport({ ratio: 1 });
      expect(await name.evaluate((e) => getComputedStyle(e).textOverflow)).toBe('ellipsis');
      // Room for a good part of it: no "N…".
      expect((await name.boundingBox())!.width).toBeGreaterThanOrEqual(viewport.width < 640 ? 150 : 200);
      const header = page.locator('header').first();
      await expectNotClipped(header);
      for (const id of ['workspace-plan', 'user-menu', 'env-live', 'env-test']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
      await expectNoHorizontalScroll(page);
      await shot(page, `layout-header-long-${viewport.width}`);
    });

    test(`${at} the home page's header fits and "Sign in" is on one line`, async ({ page }) => {
      await page.goto('/');
      const header = page.locator('header').first();
      await expectNotClipped(header);
      await expectNoHorizontalScroll(page);
      const signIn = header.getByRole('link', { name: 'Sign in' });
      await expect(signIn).toBeInViewport({ ratio: 1 });
      await expectNotClipped(signIn);
      expect(await lineCount(signIn)).toBe(1);
      // On a phone the reference is offered below the heading instead of in the header.
      const reference = viewport.width < 640 ? page.getByRole('main').getByRole('link', { name: /API reference/ }) : header.getByRole('link', { name: 'API reference' });
      await reference.scrollIntoViewIfNeeded();
      await expect(reference).toBeInViewport({ ratio: 1 });
      await shot(page, `layout-home-${viewport.width}`);
      await signIn.click();
      await expect(page).toHaveURL(/\/signin$/);
    });

    test(`${at} the secret dialog's curl breaks only between arguments, never inside the key`, async ({ page, context, request, baseURL }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
      await signUp(page, 'layout-curl');
      const secret = await createKey(page, 'Curl layout', ['keys:manage']);
      const modal = page.getByTestId('secret-modal');
      const curl = modal.getByTestId('secret-curl');
      await expect(curl).toContainText(`Bearer ${secret}`);
      await expectNoHorizontalScroll(page);

      // One line on screen per line of the command: each but the last ends with " \" after a whole argument.
      const text = (await curl.textContent())!;
      const lines = text.split('\n');
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines.slice(0, -1)) expect(line).toMatch(/\S \\$/);
      for (const line of lines) expect(line.trim()).not.toBe('\\');
      expect(await lineCount(curl)).toBe(lines.length);
      expect(await lineCount(curl, secret)).toBe(1);

      if (viewport.width >= 1280) {
        // The whole command is in view, nothing to scroll.
        await expectNotClipped(curl);
        await expect(modal.getByTestId('secret-curl-scroll-hint')).toBeHidden();
      } else {
        // Too wide for a phone: the block scrolls sideways (by touch or keyboard), and says so.
        await expect(modal.getByTestId('secret-curl-scroll-hint')).toBeVisible();
        await expect(curl).toHaveAttribute('tabindex', '0');
        await curl.evaluate((e) => (e.scrollLeft = e.scrollWidth));
        const [box, end] = [await curl.boundingBox(), await curl.evaluate((e) => {
          const r = document.createRange();
          r.selectNodeContents(e);
          return r.getBoundingClientRect().right;
        })];
        expect(end).toBeLessThanOrEqual(box!.x + box!.width);
      }
      await shot(page, `layout-secret-${viewport.width}`);

      // Copy gives exactly the command shown, and it runs.
      await modal.getByTestId('secret-curl-copy').click();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(text);
      const url = /^curl (\S+) \\\n/.exec(copied)?.[1];
      const header = /\n\s+-H "Authorization: (Bearer \S+)"$/.exec(copied)?.[1];
      expect(url && header).toBeTruthy();
      expect((await request.get(url!, { headers: { Authorization: header! } })).status()).toBe(200);
      await modal.getByTestId('secret-done').click();
    });
  });
}
