import { expect, test, type Browser, type Page } from '@playwright/test';
import { expectNoHorizontalScroll, PASSWORD, shot, signUp, uniqueEmail } from './helpers';

// A team in a real browser (docs/teams.md): the owner invites from the Members page, the invitee
// follows the link, creates an account with the invited address and joins; they switch between
// their workspaces; a viewer's Members page at 1280 and 390 px.

async function openMembers(page: Page) {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('nav-members').click();
  await expect(page).toHaveURL(/\/dashboard\/members$/);
}

/** Invites `email` as `role` on the Members page; returns the link the dialog shows once. */
async function invite(page: Page, email: string, role: string): Promise<string> {
  await page.getByTestId('invite-member').click();
  const dialog = page.getByTestId('invite-dialog');
  await dialog.getByLabel('Email address').fill(email);
  await dialog.getByLabel('Role').selectOption(role);
  await dialog.getByTestId('invite-submit').click();
  const shown = page.getByTestId('invite-link-modal');
  await expect(shown).toBeVisible();
  const link = (await shown.getByTestId('invite-link-value').textContent())!;
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  // The e2e server sends no mail (no SMTP_URL): the modal says to share the link.
  await expect(shown.getByTestId('invite-mail')).toHaveAttribute('data-mail', 'off');
  await shown.getByTestId('invite-link-done').click();
  await expect(shown).toBeHidden();
  await expect(page.getByTestId(`invitation-${email.toLowerCase()}`)).toContainText(`as ${role}`);
  return link;
}

/** A new browser follows `link`, creates an account with `email` and joins. */
async function join(browser: Browser, link: string, email: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'You are invited' })).toBeVisible();
  await page.getByTestId('invite-signup').click();
  // The invited address, filled in and locked.
  await expect(page.getByLabel('Email', { exact: true })).toHaveValue(email.toLowerCase());
  await expect(page.getByLabel('Email', { exact: true })).not.toBeEditable();
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/invite\//);
  await expect(page.getByTestId('invite-offer')).toContainText("E2E Tester's workspace");
  await page.getByTestId('invite-accept').click();
  await expect(page).toHaveURL(/\/dashboard\/agents$/);
  await expect(page.getByTestId('workspace-name')).toHaveText("E2E Tester's workspace");
  return page;
}

test('the owner invites, the invitee signs up with the link and joins, then switches workspaces', async ({ page, browser }) => {
  await signUp(page, 'team-owner');
  await openMembers(page);
  await expect(page.getByTestId('invitations-empty')).toBeVisible();
  const email = uniqueEmail('team-dev');
  const link = await invite(page, email, 'developer');
  await shot(page, 'teams-members-owner-1280');

  const dev = await join(browser, link, email);
  // The link is used: opened again it offers nothing.
  await dev.goto(link);
  await expect(dev.getByTestId('invite-invalid')).toBeVisible();
  // Two workspaces now: the team's (shown) and their own; switching is kept.
  await dev.goto('/dashboard/agents');
  await dev.getByTestId('user-menu').click();
  const own = dev.getByRole('menuitemradio', { checked: false });
  await expect(own).toHaveCount(1);
  await own.click();
  await expect(dev.getByTestId('workspace-name')).not.toHaveText("E2E Tester's workspace");
  await dev.reload();
  await expect(dev.getByTestId('workspace-name')).not.toHaveText("E2E Tester's workspace");

  // The owner sees them as a developer, and may change their role.
  await page.reload();
  await expect(page.getByTestId(`member-role-${email.toLowerCase()}`)).toHaveValue('developer');
  await expect(page.getByTestId('invitations-empty')).toBeVisible();
  await dev.context().close();
});

test('a viewer’s Members page offers nothing to change, at 1280 and 390 px', async ({ page, browser }) => {
  await signUp(page, 'team-owner2');
  await openMembers(page);
  const email = uniqueEmail('team-viewer');
  const link = await invite(page, email, 'viewer');
  const viewer = await join(browser, link, email);
  await viewer.goto('/dashboard/members');
  await expect(viewer.getByTestId(`member-role-${email.toLowerCase()}`)).toHaveText('Viewer');
  await expect(viewer.getByTestId('invite-member')).toHaveCount(0);
  await expect(viewer.locator('[data-testid^="member-remove-"]')).toHaveCount(1); // their own: Leave
  await expect(viewer.getByTestId(`member-remove-${email.toLowerCase()}`)).toHaveText('Leave');
  await shot(viewer, 'teams-members-viewer-1280');
  await viewer.setViewportSize({ width: 390, height: 844 });
  await viewer.reload();
  await expect(viewer.getByTestId('members-list')).toBeVisible();
  await expectNoHorizontalScroll(viewer);
  await shot(viewer, 'teams-members-viewer-390');
  // The pages offer a viewer nothing to change, and no API keys link.
  await viewer.goto('/dashboard/agents');
  await expect(viewer.getByRole('heading', { name: 'Agents', exact: true, level: 1 })).toBeVisible();
  await expect(viewer.getByTestId('new-agent')).toHaveCount(0);
  await viewer.goto('/dashboard/webhooks');
  await expect(viewer.getByRole('heading', { name: 'Webhooks', exact: true, level: 1 })).toBeVisible();
  await expect(viewer.getByTestId('create-webhook')).toHaveCount(0);
  await expect(viewer.getByTestId('nav-keys')).toHaveCount(0);
  await shot(viewer, 'teams-webhooks-viewer-390');
  // What a viewer may not see is refused by the server, and the page says so.
  await viewer.goto('/dashboard/keys');
  await expect(viewer.getByTestId('keys-refused')).toContainText('Your role cannot open API keys');
  await viewer.goto('/dashboard/audit');
  await expect(viewer.getByTestId('audit-refused')).toContainText('it is for owners and admins');
  await shot(viewer, 'teams-audit-viewer-390');
  await viewer.getByTestId('user-menu').click();
  await expect(viewer.getByTestId('nav-members')).toBeVisible();
  await expect(viewer.getByTestId('nav-audit')).toHaveCount(0);
  await viewer.context().close();
});
