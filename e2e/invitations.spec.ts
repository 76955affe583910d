import { expect, test, type Browser, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, PASSWORD, shot, signUp, uniqueEmail } from './helpers';

// Issue 44, item 9: an invitation, from the owner's dialog to the invitee's first page. The link
// is text with a Copy button, never split inside its token; its expiry is written as the list
// writes it (one format, its zone named). Signed out, the holder of the link sees the workspace,
// the role, the inviter and the address to use; "Create an account" has that address filled in
// and locked; any other link gets the one "not valid" answer. The viewer who joined sees the
// Schedules and Conversations pages with no button that changes anything. At 1280 and 390 px.

const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];
const DATE_TIME = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} \S+$/;

async function openMembers(page: Page) {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('nav-members').click();
  await expect(page).toHaveURL(/\/dashboard\/members$/);
}

/** A signed-out browser of its own, in Berlin, `width` wide. */
async function visitor(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport, timezoneId: 'Europe/Berlin' });
  return context.newPage();
}

for (const viewport of VIEWPORTS) {
  const at = `${viewport.width}px`;
  test.describe(`at ${at}`, () => {
    test.use({ viewport, timezoneId: 'Europe/Berlin' });

    test(`the owner's link, the invitee's page signed out, a locked address at sign-up, a viewer's read-only pages (${at})`, async ({ page, browser, request, context }) => {
      test.setTimeout(150_000);
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      const owner = await signUp(page, `inviter-${viewport.width}`);
      // Something for the viewer to look at: a schedule and a conversation, over the API.
      const key = await createKey(page, 'Seed');
      await page.getByTestId('secret-done').click();
      const headers = { Authorization: `Bearer ${key}` };
      const agent = (await (await request.post('/v1/agents', { headers, data: { name: 'Night shift', model: 'sandbox/echo' } })).json()) as { id: string };
      const schedule = (await (await request.post('/v1/schedules', { headers, data: { agentId: agent.id, cron: '0 22 * * *', input: 'close the day' } })).json()) as { id: string };
      const run = (await (await request.post(`/v1/agents/${agent.id}/execute`, { headers, data: { input: 'hi', wait: true } })).json()) as { conversationId: string };

      await openMembers(page);
      const email = uniqueEmail(`invitee-${viewport.width}`);
      await page.getByTestId('invite-member').click();
      const dialog = page.getByTestId('invite-dialog');
      await dialog.getByLabel('Email address').fill(email);
      await dialog.getByLabel('Role').selectOption('viewer');
      await dialog.getByTestId('invite-submit').click();
      const shown = page.getByTestId('invite-link-modal');
      await expect(shown).toBeVisible();

      // The link: text (not a form field), the token on one line, inside the dialog; Copy copies it whole.
      const value = shown.getByTestId('invite-link-value');
      expect(await value.evaluate((el) => el.tagName)).toBe('P');
      const link = (await value.textContent())!;
      expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
      const token = value.locator('span');
      await expect(token).toHaveText(link.split('/').pop()!);
      expect(await token.evaluate((el) => new Set([...el.getClientRects()].map((r) => Math.round(r.top))).size)).toBe(1);
      const [box, frame] = [(await token.boundingBox())!, (await value.boundingBox())!];
      expect(box.x + box.width).toBeLessThanOrEqual(frame.x + frame.width);
      await shown.getByTestId('invite-link-copy').click();
      await expect(shown.getByTestId('invite-link-status')).toContainText('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
      // Its expiry in the one format, with its zone; the list then says the very same.
      const expiry = (await shown.getByTestId('invite-link-expiry').textContent())!;
      expect(expiry).toMatch(DATE_TIME);
      expect(expiry).toMatch(/ CES?T$/);
      await expectNoHorizontalScroll(page);
      await shot(page, `invite-link-${viewport.width}`);
      await shown.getByTestId('invite-link-done').click();
      await expect(page.getByTestId(`invitation-${email.toLowerCase()}`)).toContainText(`expires ${expiry}`);
      await shot(page, `members-pending-${viewport.width}`);

      // Signed out, another browser: a link that is not valid gets the one answer.
      const invitee = await visitor(browser, viewport);
      await invitee.goto(`/invite/${'A'.repeat(43)}`);
      await expect(invitee.getByTestId('invite-invalid')).toHaveText(/^This invitation link is not valid: it may have expired, been used or revoked/);
      await expect(invitee.getByTestId('invite-details')).toHaveCount(0);
      await expect(invitee.getByTestId('invite-signup')).toHaveCount(0);
      await expectNoHorizontalScroll(invitee);
      await shot(invitee, `invite-invalid-${viewport.width}`);

      // The real link: what it invites to, by whom, for which address.
      await invitee.goto(link);
      await expect(invitee.getByRole('heading', { name: 'You are invited' })).toBeVisible();
      await expect(invitee.getByTestId('invite-workspace')).toHaveText("E2E Tester's workspace");
      await expect(invitee.getByTestId('invite-role')).toContainText('Viewer');
      await expect(invitee.getByTestId('invite-inviter')).toHaveText(`E2E Tester (${owner.email.toLowerCase()})`);
      await expect(invitee.getByTestId('invite-email')).toHaveText(email.toLowerCase());
      await expect(invitee.getByTestId('invite-expiry')).toContainText(expiry);
      await expectNoHorizontalScroll(invitee);
      await shot(invitee, `invite-preview-${viewport.width}`);

      // Create an account: the invited address is filled in and locked.
      await invitee.getByTestId('invite-signup').click();
      const address = invitee.getByLabel('Email', { exact: true });
      await expect(address).toHaveValue(email.toLowerCase());
      await expect(address).not.toBeEditable();
      await expectNoHorizontalScroll(invitee);
      await shot(invitee, `invite-signup-${viewport.width}`);
      await invitee.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await invitee.getByRole('button', { name: 'Create account' }).click();
      await expect(invitee).toHaveURL(/\/invite\//);
      await expect(invitee.getByTestId('invite-offer')).toContainText("E2E Tester's workspace");
      await expect(invitee.getByTestId('invite-inviter')).toHaveText(`E2E Tester (${owner.email.toLowerCase()})`);
      await shot(invitee, `invite-accept-${viewport.width}`);
      await invitee.getByTestId('invite-accept').click();
      await expect(invitee).toHaveURL(/\/dashboard\/agents$/);

      // A viewer reads schedules and conversations, and is offered nothing that changes them.
      await invitee.goto('/dashboard/schedules');
      await expect(invitee.getByTestId('schedule-row')).toHaveCount(1);
      await invitee.goto(`/dashboard/schedules/${schedule.id}`);
      await expect(invitee.getByTestId('upcoming-run')).toHaveCount(5);
      await expect(invitee.getByTestId('schedule-actions')).toHaveCount(0);
      await expectNoHorizontalScroll(invitee);
      await shot(invitee, `schedule-viewer-${viewport.width}`);
      await invitee.goto(`/dashboard/conversations/${run.conversationId}`);
      await expect(invitee.getByTestId('conversation-message')).toHaveCount(2);
      await expect(invitee.getByTestId('conversation-delete')).toHaveCount(0);
      await invitee.goto(`/dashboard/agents/${agent.id}`);
      await expect(invitee.getByTestId('schedule-item')).toHaveCount(1);
      await expect(invitee.getByTestId('schedule-run-now')).toHaveCount(0);
      await expect(invitee.getByTestId('create-schedule')).toHaveCount(0);
      await invitee.context().close();
    });
  });
}
