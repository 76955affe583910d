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

test('what only the server knows lands on the field its param names: a key expiry in the past, a repeated tool name', async ({ page }) => {
  await signUp(page, 'param');
  await page.getByTestId('create-key').click();
  const dialog = page.getByTestId('create-key-dialog');
  await dialog.getByLabel('Name').fill('Expired already');
  const expires = dialog.getByLabel('Expires (optional)');
  await expires.fill('2020-01-01T10:00');
  await dialog.getByTestId('create-key-submit').click();
  // 400 invalid_parameter, param expiresAt: on the field, in view and focused; not at the top.
  const error = dialog.locator('#key-expires-error');
  await expect(error).toContainText('must be in the future');
  await expect(expires).toHaveAttribute('aria-invalid', 'true');
  await expect(expires).toBeFocused();
  await expect(dialog.getByTestId('create-key-error')).toHaveCount(0);
  const tomorrow = new Date(Date.now() + 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  await expires.fill(`${tomorrow.getFullYear()}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T10:00`);
  await expect(error).toHaveCount(0);
  await expect(expires).not.toHaveAttribute('aria-invalid');
  await dialog.getByTestId('create-key-submit').click();
  await expect(page.getByTestId('secret-modal')).toBeVisible();

  // Two tools of one name: the server names the second one's name (tools.1.name).
  await page.goto('/dashboard/agents/new');
  await page.getByLabel('Name', { exact: true }).fill('Twin tools');
  for (let i = 0; i < 2; i++) {
    await page.getByTestId('add-tool').click();
    const tool = page.getByTestId('tool-editor').nth(i);
    await tool.getByLabel('Name').fill('lookup');
    await tool.getByLabel('Description').fill('Looks something up.');
    await tool.getByLabel('URL').fill('https://93.184.215.14/lookup');
  }
  await page.getByTestId('agent-submit').click();
  const second = page.getByTestId('tool-editor').nth(1).getByLabel('Name');
  await expect(page.locator('#agent-tools-1-name-error')).toContainText('Tool names must be unique');
  await expect(second).toHaveAttribute('aria-invalid', 'true');
  await expect(second).toBeFocused();
  await expect(page.getByTestId('agent-form-error')).toHaveCount(0);
  await second.fill('lookup_again');
  await expect(page.locator('#agent-tools-1-name-error')).toHaveCount(0);
});
