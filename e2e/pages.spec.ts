import { expect, test, type Page } from '@playwright/test';
import { expectNoHorizontalScroll } from './helpers';

/** Collects every request that leaves the app's own origin (the docs must work offline). */
function recordExternalRequests(page: Page, origin: string): string[] {
  const external: string[] = [];
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) external.push(url);
  });
  return external;
}

test('an unknown page is a branded 404 with a way home', async ({ page }) => {
  const res = await page.goto('/no-such-page');
  expect(res?.status()).toBe(404);
  await expect(page).toHaveTitle(/Page not found/);
  const notFound = page.getByTestId('not-found');
  await expect(notFound.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(notFound.getByTestId('not-found-home')).toHaveAttribute('href', '/');
  await notFound.getByTestId('not-found-dashboard').click();
  // Signed out, the dashboard asks to sign in first.
  await expect(page).toHaveURL(/\/signin$/);
});

test('the 404 page fits a 390px phone', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/definitely/not/here');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expectNoHorizontalScroll(page);
  await expect(page.getByTestId('not-found-home')).toBeInViewport({ ratio: 1 });
});

test('/docs renders the OpenAPI document with Scalar, without leaving the server', async ({ page, baseURL }) => {
  test.setTimeout(150_000); // Scalar renders in the browser: seconds alone, far more on a busy machine
  const external = recordExternalRequests(page, baseURL!);
  await page.goto('/docs');
  await expect(page).toHaveTitle(/API reference/);
  // The operation and a field description both come from /v1/openapi.json (operations render
  // lazily below the introduction: follow the sidebar to it, as a reader would).
  await page.getByRole('complementary').getByRole('link', { name: /Create an API key/ }).click();
  await expect(page.getByRole('heading', { name: 'Create an API key' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('A name that tells you where the key is used').first()).toBeVisible();
  await expect(page.getByTestId('openapi-link')).toHaveAttribute('href', '/v1/openapi.json');
  expect(external).toEqual([]);
});

test('/docs fits a 390px phone', async ({ page, baseURL }) => {
  test.setTimeout(150_000); // Scalar renders in the browser: seconds alone, far more on a busy machine
  const external = recordExternalRequests(page, baseURL!);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/docs');
  await expect(page.getByRole('heading', { name: 'Agent Automation Service API' })).toBeVisible({ timeout: 60_000 });
  await expectNoHorizontalScroll(page);
  // The sidebar sits behind a menu button on a phone.
  await page.getByRole('button', { name: 'Open Menu' }).click();
  await page.getByRole('complementary').getByRole('link', { name: /Create an API key/ }).click();
  await expect(page.getByRole('heading', { name: 'Create an API key' })).toBeVisible({ timeout: 60_000 });
  await expectNoHorizontalScroll(page);
  expect(external).toEqual([]);
});

test('/docs: the error table reads whole on a 390px phone and beside the sidebar, nothing cut off at its side', async ({ page }) => {
  test.setTimeout(150_000); // Scalar renders in the browser: seconds alone, far more on a busy machine
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto('/docs');
    const table = page.locator('.markdown table').filter({ has: page.locator('th', { hasText: /^meaning$/ }) });
    await expect(table).toBeVisible({ timeout: 60_000 });
    await table.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    // Nothing hidden sideways inside the table (a scroll box would hide its last columns).
    expect(await table.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    for (const name of ['code', 'status', 'type', 'meaning']) {
      await expect(table.locator('th', { hasText: new RegExp(`^${name}$`) })).toBeInViewport({ ratio: 1 });
    }
    const row = table.locator('tr').filter({ hasText: 'missing_required_field' });
    await expect(row.locator('td')).toHaveCount(4);
    for (const cell of await row.locator('td').all()) await expect(cell).toBeInViewport({ ratio: 1 });
    await expect(row).toContainText('invalid_request_error');
    await expect(row).toContainText('A required field is missing');
    await expectNoHorizontalScroll(page);
  }
});
