import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, shot, signUp } from './helpers';

// The Audit log page (docs/audit.md) in a real browser: an owner finds who did what with the
// API's filters, narrows to one target from a record, and exports what they selected as CSV.

test('an owner reads, filters and exports the audit log, at 1280 and 390 px', async ({ page }) => {
  const { email } = await signUp(page, 'audit-owner');
  await page.goto('/dashboard/keys');
  await createKey(page, '=Deploy key');
  await page.getByTestId('secret-done').click();

  await page.getByTestId('user-menu').click();
  await page.getByTestId('nav-audit').click();
  await expect(page).toHaveURL(/\/dashboard\/audit$/);
  await expect(page.getByRole('heading', { name: 'Audit log', level: 1 })).toBeVisible();
  const rows = page.getByTestId('audit-row');
  // Newest first: the key, the sign-in, the account.
  await expect(rows.first()).toHaveAttribute('data-action', 'key.created');
  await expect(page.locator('[data-action="user.created"]')).toHaveCount(1);
  await expect(rows.first().getByTestId('audit-actor')).toHaveText(email.toLowerCase());

  await rows.first().getByTestId('audit-toggle').click();
  const details = rows.first().getByTestId('audit-details');
  await expect(details.getByTestId('audit-changes')).toContainText('=Deploy key');
  await expect(details).not.toContainText(/sk_(live|test)_[A-Za-z0-9]{20,}/);
  await shot(page, 'audit-owner-1280');

  // One target's history, from its record; the address keeps the filter.
  await details.getByTestId('audit-filter-target').click();
  await expect(page).toHaveURL(/targetId=key_/);
  await expect(rows).toHaveCount(1);
  await page.getByTestId('audit-clear').click();
  await expect(page).toHaveURL(/\/dashboard\/audit$/);

  await page.getByTestId('audit-filter-action').selectOption('user.signed_in');
  await expect(page).toHaveURL(/action=user\.signed_in/);
  await expect(rows.first()).toHaveAttribute('data-action', 'user.signed_in');
  await expect(page.locator('[data-action="key.created"]')).toHaveCount(0);

  // A day range with nothing in it, then back to everything.
  await page.getByTestId('audit-from').fill('2020-01-01');
  await page.getByTestId('audit-to').fill('2020-01-31');
  await page.getByTestId('audit-apply').click();
  await expect(page.getByTestId('audit-empty')).toContainText('No records match');
  await page.getByTestId('audit-clear').click();
  await expect(rows.first()).toHaveAttribute('data-action', 'key.created');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-export').click()]);
  expect(download.suggestedFilename()).toMatch(/^audit-log-live-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await download.path())!, 'utf8');
  const lines = csv.trimEnd().split('\r\n');
  expect(lines[0]).toBe('id,created_at,action,actor_type,actor_id,actor,target_type,target_id,environment,ip,user_agent,request_id,changes');
  expect(lines.length - 1).toBe(await rows.count());
  expect(lines[1]).toContain(',key.created,user,usr_');
  // A name typed as a formula reaches the file inside JSON: a spreadsheet shows it as text.
  expect(lines[1]).toMatch(/,"\{""name"":\[null,""=Deploy key""\]/);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(rows.first()).toBeVisible();
  await expectNoHorizontalScroll(page);
  await shot(page, 'audit-owner-390');
});
