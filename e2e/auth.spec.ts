import { expect, test } from '@playwright/test';
import { signOut, signUp } from './helpers';

test('signed-out visitors are sent to sign in', async ({ page }) => {
  await page.goto('/dashboard/keys');
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

test('a wrong password shows a clear error; the right one signs in', async ({ page }) => {
  const { email, password } = await signUp(page, 'signin');
  await signOut(page);

  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await page.getByTestId('signin-submit').click();
  await expect(page.getByTestId('signin-error')).toHaveText('Incorrect email or password.');
  await expect(page).toHaveURL(/\/signin$/);

  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByTestId('signin-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/keys$/);
  await expect(page.getByTestId('keys-empty')).toBeVisible();
});

test('ten wrong passwords lock the email for a while, even against the right one', async ({ page }) => {
  const { email, password } = await signUp(page, 'locked');
  await signOut(page);

  await page.getByLabel('Email', { exact: true }).fill(email);
  for (let i = 0; i < 10; i++) {
    await page.getByLabel('Password', { exact: true }).fill(`wrong-${i}-password`);
    await page.getByTestId('signin-submit').click();
    await expect(page.getByTestId('signin-error')).toHaveText('Incorrect email or password.');
  }
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByTestId('signin-submit').click();
  await expect(page.getByTestId('signin-error')).toHaveText(/Too many failed attempts for this email/);
  await expect(page).toHaveURL(/\/signin$/);
});
