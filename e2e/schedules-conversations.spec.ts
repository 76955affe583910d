import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, openSection, shot, signUp } from './helpers';

// Issue 44, item 6: schedules and conversations have pages of their own, in the navigation —
// workspace-wide lists filtered by agent, in keyset pages; a schedule's next runs in words and
// its runs; a conversation's messages and its executions; loading, empty, failed and not-found
// states; Delete confirmed. At 1280 and 390 px, nothing to scroll sideways. A viewer's pages:
// e2e/invitations.spec.ts.

const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];
/** The day and time the dashboard writes: "Dec 5, 2026, 08:30 CET". */
const DATE_TIME = /[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} \S+/;

async function withKey(page: Page, request: APIRequestContext, label: string) {
  await signUp(page, label);
  const key = await createKey(page, 'Lists');
  await page.getByTestId('secret-done').click();
  const headers = { Authorization: `Bearer ${key}` };
  return async function post<T>(path: string, data?: unknown): Promise<T> {
    const res = await request.post(path, { headers, data });
    expect(res.status(), `${path}: ${await res.text()}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
}

for (const viewport of VIEWPORTS) {
  const at = `${viewport.width}px`;
  test.describe(`at ${at}`, () => {
    test.use({ viewport, timezoneId: 'Europe/Berlin' });

    test(`Schedules: the list, the agent filter, a schedule's next runs and runs, pause and delete (${at})`, async ({ page, request }) => {
      test.setTimeout(120_000);
      const post = await withKey(page, request, `schedules-${viewport.width}`);
      // Empty first: what to do.
      await openSection(page, 'schedules');
      await expect(page).toHaveURL(/\/dashboard\/schedules$/);
      await expect(page.getByTestId('schedules-empty')).toContainText('No schedules yet');
      await expectNoHorizontalScroll(page);
      await shot(page, `schedules-empty-${viewport.width}`);

      const reports = await post<{ id: string }>('/v1/agents', { name: 'Weekly report', model: 'sandbox/echo' });
      const digest = await post<{ id: string }>('/v1/agents', { name: 'Digest', model: 'sandbox/echo' });
      const weekly = await post<{ id: string }>('/v1/schedules', { agentId: reports.id, cron: '30 8 * * MON', timezone: 'Europe/Berlin', input: 'Write the weekly report' });
      await post('/v1/schedules', { agentId: digest.id, cron: '0 */6 * * *', input: 'Summarise the inbox', enabled: false });
      const run = await post<{ id: string }>(`/v1/schedules/${weekly.id}/run`);

      await page.reload();
      const rows = page.getByTestId('schedule-row');
      await expect(rows).toHaveCount(2);
      const row = rows.filter({ hasText: 'At 08:30, only on Monday' });
      await expect(row.getByTestId('schedule-state')).toHaveText('Active');
      // Minutes on a Monday morning before 08:30 (Berlin), hours or days otherwise.
      await expect(row.getByTestId('schedule-next')).toHaveText(new RegExp(`^Next run (in \\d+ (min|h|d)|just now) · ${DATE_TIME.source}$`));
      await expect(row.getByTestId('schedule-next')).toContainText('08:30 CE');
      await expect(rows.filter({ hasText: 'every 6 hours' }).getByTestId('schedule-state')).toHaveText('Paused');
      await expectNoHorizontalScroll(page);
      await shot(page, `schedules-list-${viewport.width}`);

      // Filtered by agent, in the address.
      await page.getByTestId('filter-agent').selectOption({ label: 'Digest' });
      await expect(page).toHaveURL(new RegExp(`/dashboard/schedules\\?agentId=${digest.id}$`));
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText('every 6 hours');
      await page.getByTestId('clear-filters').click();
      await expect(rows).toHaveCount(2);

      // The schedule's page: in words, its next five runs in its zone, its run.
      await row.getByTestId('schedule-row-words').click();
      await expect(page).toHaveURL(`/dashboard/schedules/${weekly.id}`);
      await expect(page.getByTestId('schedule-words')).toHaveText('At 08:30, only on Monday');
      const upcoming = page.getByTestId('upcoming-run');
      await expect(upcoming).toHaveCount(5);
      for (const text of await upcoming.allInnerTexts()) expect(text).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, 08:30 CES?T\s+(in \d+ (min|h|d|mo)|just now)$/);
      const runs = page.getByTestId('schedule-runs').getByTestId('execution-item');
      await expect(runs).toHaveCount(1);
      await expect(runs.first()).toHaveAttribute('data-execution-id', run.id);
      await expect(page.getByTestId('schedule-agent')).toContainText('Weekly report');
      await expectNoHorizontalScroll(page);
      await shot(page, `schedule-page-${viewport.width}`);

      // Pause: no next runs; resume.
      await page.getByTestId('schedule-toggle').click();
      await expect(page.getByTestId('schedule-state')).toHaveText('Paused');
      await expect(page.getByTestId('upcoming-empty')).toContainText('paused');
      await page.getByTestId('schedule-toggle').click();
      await expect(page.getByTestId('schedule-state')).toHaveText('Active');
      await expect(upcoming).toHaveCount(5);

      // Delete, confirmed: back to the list, one left.
      await page.getByTestId('schedule-delete').click();
      const confirm = page.getByTestId('delete-schedule-dialog');
      await expect(confirm).toContainText('will not run again');
      await expectNoHorizontalScroll(page);
      await shot(page, `schedule-delete-${viewport.width}`);
      await confirm.getByTestId('delete-schedule-confirm').click();
      await expect(page).toHaveURL(/\/dashboard\/schedules$/);
      await expect(rows).toHaveCount(1);

      // A schedule that is not there (deleted, another workspace's or environment's): said so.
      await page.goto(`/dashboard/schedules/${weekly.id}`);
      await expect(page.getByTestId('schedule-not-found')).toContainText('No such schedule here');
      await expectNoHorizontalScroll(page);
    });

    test(`Conversations: the list, the agent filter, a conversation's messages and executions, delete (${at})`, async ({ page, request }) => {
      test.setTimeout(120_000);
      const post = await withKey(page, request, `conversations-${viewport.width}`);
      await openSection(page, 'conversations');
      await expect(page).toHaveURL(/\/dashboard\/conversations$/);
      await expect(page.getByTestId('conversations-empty')).toContainText('No conversations yet');
      await shot(page, `conversations-empty-${viewport.width}`);

      const helper = await post<{ id: string }>('/v1/agents', { name: 'Helper', model: 'sandbox/echo' });
      const other = await post<{ id: string }>('/v1/agents', { name: 'Other', model: 'sandbox/echo' });
      const first = await post<{ id: string; conversationId: string }>(`/v1/agents/${helper.id}/execute`, { input: 'hello there', wait: true });
      const second = await post<{ id: string }>(`/v1/agents/${helper.id}/execute`, { input: 'and again', conversationId: first.conversationId, wait: true });
      await post(`/v1/agents/${other.id}/execute`, { input: 'elsewhere', wait: true });

      await page.reload();
      const rows = page.getByTestId('conversation-row');
      await expect(rows).toHaveCount(2);
      const thread = page.locator(`[data-testid="conversation-row"][data-conversation-id="${first.conversationId}"]`);
      await expect(thread.getByTestId('conversation-message-count')).toHaveText('4');
      await expect(thread).toContainText('Helper');
      await expectNoHorizontalScroll(page);
      await shot(page, `conversations-list-${viewport.width}`);
      await page.getByTestId('filter-agent').selectOption({ label: 'Other' });
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText('Other');
      await page.getByTestId('clear-filters').click();
      await expect(rows).toHaveCount(2);

      // Its page: the messages in order, in words, and its two executions, newest first.
      await thread.getByRole('link').first().click();
      await expect(page).toHaveURL(`/dashboard/conversations/${first.conversationId}`);
      const messages = page.getByTestId('conversation-message');
      await expect(messages).toHaveCount(4);
      await expect(messages.locator('span').filter({ hasText: /^(User|Assistant)$/ })).toHaveText(['User', 'Assistant', 'User', 'Assistant']);
      await expect(messages.first()).toContainText('hello there');
      const executions = page.getByTestId('conversation-executions').getByTestId('execution-item');
      await expect(executions).toHaveCount(2);
      await expect(executions.first()).toHaveAttribute('data-execution-id', second.id);
      await expect(executions.first().getByTestId('execution-status')).toHaveText('Succeeded');
      await expect(page.getByTestId('conversation-agent')).toHaveText('Helper');
      await expect(page.getByTestId('conversation-page')).toContainText(DATE_TIME);
      await expectNoHorizontalScroll(page);
      await shot(page, `conversation-page-${viewport.width}`);

      // From an execution's page, its conversation links here.
      await executions.last().getByRole('link').click();
      await expect(page).toHaveURL(`/dashboard/executions/${first.id}`);
      await page.getByTestId('execution-conversation-id').click();
      await expect(page).toHaveURL(`/dashboard/conversations/${first.conversationId}`);

      // Delete, confirmed.
      await page.getByTestId('conversation-delete').click();
      const confirm = page.getByTestId('delete-conversation-dialog');
      await expect(confirm).toContainText('deleted for good');
      await shot(page, `conversation-delete-${viewport.width}`);
      await confirm.getByTestId('delete-conversation-confirm').click();
      await expect(page).toHaveURL(/\/dashboard\/conversations$/);
      await expect(rows).toHaveCount(1);
      await page.goto(`/dashboard/conversations/${first.conversationId}`);
      await expect(page.getByTestId('conversation-not-found')).toBeVisible();
      await expectNoHorizontalScroll(page);
      await shot(page, `conversation-not-found-${viewport.width}`);
    });
  });
}

test('the lists page with "Load more" (keyset pages), show a loading state, and say when they cannot load', async ({ page, request, context }) => {
  test.setTimeout(120_000);
  const post = await withKey(page, request, 'lists-pages');
  const agent = await post<{ id: string }>('/v1/agents', { name: 'Busy', model: 'sandbox/echo' });
  for (let i = 0; i < 27; i++) await post('/v1/schedules', { agentId: agent.id, cron: `${i} 7 * * *`, input: `report ${i}` });

  // Loading: the answer held back a moment, the skeleton shows meanwhile.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  // Any tRPC request that carries schedules.list: the link may batch it behind another procedure
  // (`/api/trpc/agents.list,schedules.list?batch=1`), which a pattern on the path's start missed
  // (seen once with two workers: the list arrived unheld and the skeleton never showed).
  await page.route('**/api/trpc/**', async (route) => {
    if (!route.request().url().includes('schedules.list')) return route.fallback();
    await held;
    await route.continue();
  });
  await page.goto('/dashboard/schedules');
  await expect(page.getByTestId('schedules-loading')).toBeVisible();
  await shot(page, 'schedules-loading-1280');
  // Released, the route lets every later request through at once (unrouting it while the held
  // request was still in its handler answered that request twice: "Route is already handled").
  release();
  const rows = page.getByTestId('schedule-row');
  await expect(rows).toHaveCount(25);
  await page.getByTestId('load-more').click();
  await expect(rows).toHaveCount(27);
  await expect(page.getByTestId('load-more')).toHaveCount(0);

  // Signed out meanwhile (another tab): the list says so, with a way back in.
  await context.clearCookies();
  await page.getByTestId('filter-agent').selectOption({ label: 'Busy' });
  await expect(page.getByTestId('schedules-error')).toContainText('could not be loaded');
  await expect(page.getByTestId('schedules-error').getByRole('link', { name: 'Sign in' })).toBeVisible();
  await shot(page, 'schedules-error-1280');
});
