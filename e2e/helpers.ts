import { expect, type APIRequestContext, type Page } from '@playwright/test';

export const PASSWORD = 'correct horse battery staple';

export function uniqueEmail(label: string): string {
  return `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Signs up through the form; the app signs the new user in and opens the keys page. */
export async function signUp(page: Page, label = 'e2e'): Promise<{ email: string; password: string }> {
  const email = uniqueEmail(label);
  await page.goto('/signup');
  await page.getByLabel('Name (optional)').fill('E2E Tester');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard\/keys$/);
  await expect(page.getByTestId('workspace-name')).toHaveText("E2E Tester's workspace");
  return { email, password: PASSWORD };
}

/** Creates a key in the dialog and returns the secret shown in the one-time modal (left open). */
export async function createKey(page: Page, name: string, extraScopes: string[] = []): Promise<string> {
  await page.getByTestId('create-key').first().click();
  const dialog = page.getByTestId('create-key-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Name').fill(name);
  for (const scope of extraScopes) await dialog.getByTestId(`scope-${scope}`).check();
  await dialog.getByTestId('create-key-submit').click();
  const modal = page.getByTestId('secret-modal');
  await expect(modal).toBeVisible();
  await expect(dialog).toBeHidden();
  return modal.getByTestId('secret-value').inputValue();
}

/** Every place a secret could still be: the markup and the values of form fields. */
export async function pageText(page: Page): Promise<string> {
  const html = await page.content();
  const values = await page.locator('input, textarea').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  return [html, ...values].join('\n');
}

/** Signs out through the account menu in the dashboard header. */
export async function signOut(page: Page): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('sign-out').click();
  await expect(page).toHaveURL(/\/signin$/);
}

/** Follows a link of the dashboard's main navigation (on a phone the links sit behind the Menu button). */
export async function openSection(page: Page, section: string): Promise<void> {
  const menu = page.getByTestId('nav-menu');
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  await page.getByTestId(`nav-${section}`).click();
}

/** The page is no wider than the viewport: nothing to scroll sideways. */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

/** Submits the sign-in form (the caller checks where it leads). */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByTestId('signin-submit').click();
}

/** With E2E_SCREENSHOTS=<dir>, saves a full-page screenshot there (to look at the pages as a user would). */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.E2E_SCREENSHOTS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

/** The /v1 API with a key of the caller's own. */
export interface KeyApi {
  post: <T>(path: string, data: unknown) => Promise<T>;
  get: <T>(path: string) => Promise<T>;
}

/** Signs up, makes a key named `keyName` in the dialog; the API calls with it (a call that fails fails the test). */
export async function apiWithKey(page: Page, request: APIRequestContext, label: string, keyName: string): Promise<KeyApi> {
  await signUp(page, label);
  const key = await createKey(page, keyName);
  await page.getByTestId('secret-done').click();
  const headers = { Authorization: `Bearer ${key}` };
  return {
    post: async <T,>(path: string, data: unknown) => {
      const res = await request.post(path, { headers, data });
      expect(res.status(), await res.text()).toBeLessThan(300);
      return (await res.json()) as T;
    },
    get: async <T,>(path: string) => {
      const res = await request.get(path, { headers });
      expect(res.status(), await res.text()).toBe(200);
      return (await res.json()) as T;
    },
  };
}
