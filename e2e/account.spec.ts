import { expect, test } from '@playwright/test';
import { signIn, signOut, signUp } from './helpers';

const NEW_PASSWORD = 'a brand new passphrase';

test('change the password from the account menu', async ({ page }) => {
  const { email, password } = await signUp(page, 'passwd');
  await page.getByTestId('user-menu').click();
  await page.getByTestId('change-password').click();
  const dialog = page.getByTestId('change-password-dialog');
  await expect(dialog).toBeVisible();

  // A wrong current password is reported on that field, and goes when the field is edited.
  const current = dialog.getByLabel('Current password');
  await current.fill('not my password');
  await dialog.getByLabel('New password').fill(NEW_PASSWORD);
  await dialog.getByTestId('change-password-submit').click();
  await expect(current).toHaveAttribute('aria-invalid', 'true');
  await current.fill(password);
  await expect(current).not.toHaveAttribute('aria-invalid');

  await dialog.getByTestId('change-password-submit').click();
  await expect(dialog.getByTestId('change-password-success')).toBeVisible();
  await dialog.getByTestId('change-password-done').click();
  await expect(dialog).toBeHidden();

  await signOut(page);
  await signIn(page, email, password);
  await expect(page.getByTestId('signin-error')).toHaveText('Incorrect email or password.');
  await signIn(page, email, NEW_PASSWORD);
  await expect(page).toHaveURL(/\/dashboard\/keys$/);
});

test('sign out everywhere ends the sessions of every browser', async ({ page, browser }) => {
  const { email, password } = await signUp(page, 'everywhere');
  const other = await browser.newContext();
  const elsewhere = await other.newPage();
  await signIn(elsewhere, email, password);
  await expect(elsewhere).toHaveURL(/\/dashboard\/keys$/);

  await page.getByTestId('user-menu').click();
  await page.getByTestId('sign-out-everywhere').click();
  const confirm = page.getByTestId('sign-out-everywhere-dialog');
  await expect(confirm).toContainText('including this one');
  // Cancel changes nothing.
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await page.reload();
  await expect(page).toHaveURL(/\/dashboard\/keys$/);

  await page.getByTestId('user-menu').click();
  await page.getByTestId('sign-out-everywhere').click();
  await page.getByTestId('sign-out-everywhere-confirm').click();
  await expect(page).toHaveURL(/\/signin$/);

  await elsewhere.goto('/dashboard/keys');
  await expect(elsewhere).toHaveURL(/\/signin$/);
  await other.close();
});
