import { expect, test } from '@playwright/test';
import { signUp, uniqueEmail } from './helpers';

test('a sign-up field error goes away once the field is edited', async ({ page }) => {
  await page.goto('/signup');
  await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('fix'));
  const password = page.getByLabel('Password', { exact: true });
  await password.fill('short');
  await page.getByTestId('signup-submit').click();
  const error = page.getByText('Use at least 8 characters for your password.');
  await expect(error).toBeVisible();
  await expect(password).toHaveAttribute('aria-invalid', 'true');

  await password.pressSequentially(' and longer');
  await expect(error).toHaveCount(0);
  await expect(password).not.toHaveAttribute('aria-invalid');
});

test('a key-name error goes away once the name is typed', async ({ page }) => {
  await signUp(page, 'fixname');
  await page.getByTestId('create-key').click();
  const dialog = page.getByTestId('create-key-dialog');
  await dialog.getByTestId('create-key-submit').click();
  const error = dialog.getByText('Give the key a name.');
  await expect(error).toBeVisible();

  const name = dialog.getByLabel('Name');
  await name.pressSequentially('B');
  await expect(error).toHaveCount(0);
  await expect(name).not.toHaveAttribute('aria-invalid');

  // The scopes error likewise goes with the next tick.
  for (const scope of ['agents:read', 'agents:write', 'agents:execute', 'analytics:read']) await dialog.getByTestId(`scope-${scope}`).uncheck();
  await dialog.getByTestId('create-key-submit').click();
  const scopesError = dialog.getByText('Select at least one scope.');
  await expect(scopesError).toBeInViewport();
  await dialog.getByTestId('scope-agents:read').check();
  await expect(scopesError).toHaveCount(0);
});
