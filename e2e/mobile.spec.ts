import { expect, test } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, signOut, signUp } from './helpers';

test.use({ viewport: { width: 390, height: 844 } });

test('on a 390px phone the keys page never scrolls sideways and every action is reachable', async ({ page, request }) => {
  await signUp(page, 'mobile');
  await expect(page.getByTestId('keys-empty')).toBeVisible();
  await expectNoHorizontalScroll(page);
  for (const id of ['create-key', 'env-live', 'env-test', 'user-menu']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });

  // The environment switch works and the test-mode header still fits.
  await page.getByTestId('env-test').click();
  await expect(page.getByTestId('test-mode-badge')).toBeInViewport({ ratio: 1 });
  await expectNoHorizontalScroll(page);
  await page.getByTestId('env-live').click();
  await expect(page.getByTestId('test-mode-badge')).toHaveCount(0);

  // The create dialog (with a validation error) and the secret modal fit too.
  await page.getByTestId('create-key').click();
  const dialog = page.getByTestId('create-key-dialog');
  await dialog.getByTestId('create-key-submit').click();
  await expect(dialog.getByText('Give the key a name.')).toBeVisible();
  await expectNoHorizontalScroll(page);
  await expect(dialog.getByTestId('create-key-submit')).toBeInViewport({ ratio: 1 });
  await page.keyboard.press('Escape');

  const secret = await createKey(page, 'Phone provisioner', ['keys:manage']);
  const modal = page.getByTestId('secret-modal');
  await expectNoHorizontalScroll(page);
  const value = modal.getByTestId('secret-value');
  expect(await value.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight)).toBe(true);
  await expect(modal.getByTestId('secret-curl')).toContainText(secret);
  await expect(modal.getByTestId('secret-done')).toBeInViewport({ ratio: 1 });
  await modal.getByTestId('secret-done').click();

  await expect(page.getByTestId('key-row')).toHaveCount(1);
  await expectNoHorizontalScroll(page);
  await expect(page.getByTestId('key-row').getByRole('button', { name: 'Revoke Phone provisioner' })).toBeInViewport({ ratio: 1 });

  // A second page of keys: "Load more" is reachable, and the longer list still fits.
  for (let i = 1; i <= 20; i++) {
    const res = await request.post('/v1/keys', { headers: { Authorization: `Bearer ${secret}` }, data: { name: `Phone batch ${i}` } });
    expect(res.status()).toBe(201);
  }
  await page.reload();
  await expect(page.getByTestId('key-row')).toHaveCount(20);
  const loadMore = page.getByTestId('load-more');
  await loadMore.scrollIntoViewIfNeeded();
  await expect(loadMore).toBeInViewport({ ratio: 1 });
  await loadMore.click();
  await expect(page.getByTestId('key-row')).toHaveCount(21);
  await expectNoHorizontalScroll(page);

  // Revoke from the phone, through the confirmation.
  const row = page.getByTestId('key-row').filter({ hasText: 'Phone batch 20' });
  const revoke = row.getByRole('button', { name: 'Revoke Phone batch 20' });
  await revoke.scrollIntoViewIfNeeded();
  await expect(revoke).toBeInViewport({ ratio: 1 });
  await revoke.click();
  const confirm = page.getByTestId('revoke-dialog');
  await expectNoHorizontalScroll(page);
  await confirm.getByTestId('revoke-confirm').click();
  await expect(confirm).toBeHidden();
  await expect(row).toHaveCount(0);

  // The account menu opens inside the screen; signing out works from it.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByTestId('user-menu').click();
  await expect(page.getByTestId('user-menu-items')).toBeInViewport({ ratio: 1 });
  await expectNoHorizontalScroll(page);
  await page.keyboard.press('Escape');
  await signOut(page);
});

test('on a 390px phone every section is in the Menu panel, in view, one tap away', async ({ page }) => {
  await signUp(page, 'mobile-nav');
  const menu = page.getByTestId('nav-menu');
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const id of ['nav-menu', 'env-live', 'env-test', 'user-menu']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(nav).toBeHidden();

  const destinations: [string, RegExp][] = [
    ['agents', /\/dashboard\/agents$/],
    ['executions', /\/dashboard\/executions$/],
    ['budgets', /\/dashboard\/budgets$/],
    ['keys', /\/dashboard\/keys$/],
    ['webhooks', /\/dashboard\/webhooks$/],
    ['events', /\/dashboard\/events$/],
  ];
  for (const [section, url] of destinations) {
    await menu.click();
    await expect(menu).toHaveAttribute('aria-expanded', 'true');
    // Every link of the panel (however many sections there are) is in view at once, Docs too.
    const links = nav.getByRole('link');
    expect(await links.count()).toBeGreaterThanOrEqual(destinations.length + 1);
    for (const link of await links.all()) await expect(link).toBeInViewport({ ratio: 1 });
    await expect(page.getByTestId('nav-docs')).toBeInViewport({ ratio: 1 });
    await expectNoHorizontalScroll(page);
    await page.getByTestId(`nav-${section}`).click();
    await expect(page).toHaveURL(url);
    // Navigating closes the panel; the section is marked as the current one in it.
    await expect(nav).toBeHidden();
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(page.getByTestId(`nav-${section}`)).toHaveAttribute('aria-current', 'page');
    await expectNoHorizontalScroll(page);
  }

  // Escape and a tap outside close it too; in test mode the header still fits.
  await menu.click();
  await page.keyboard.press('Escape');
  await expect(nav).toBeHidden();
  await expect(menu).toBeFocused();
  await menu.click();
  await page.mouse.click(195, 800); // below the panel
  await expect(nav).toBeHidden();
  await page.getByTestId('env-test').click();
  for (const id of ['nav-menu', 'test-mode-badge', 'env-live', 'env-test', 'user-menu']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
  await expectNoHorizontalScroll(page);
  await page.getByTestId('env-live').click();

  await menu.click();
  await page.getByTestId('nav-docs').click();
  // The reference adds its own anchor once its script runs (#description/…): either is the page.
  await expect(page).toHaveURL(/\/docs(#.*)?$/);

  // On a wide screen the links sit in the header itself, with no menu button.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/dashboard/agents');
  await expect(menu).toBeHidden();
  for (const section of [...destinations.map(([s]) => s), 'docs']) await expect(page.getByTestId(`nav-${section}`)).toBeInViewport({ ratio: 1 });
});
