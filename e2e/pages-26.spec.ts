import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, shot, signUp } from './helpers';

// Issue 26, points 8, 10, 11 and 12, at 1280 and 390 px: the execution page's ids (one token
// each, never wrapped mid-id) and its schedule link; the agent page's cron in words, its one date
// format and "Rotate tool secret" only where a tool call is signed; the executions list's
// "Started by" column; "Provider not configured" in the agents list; the webhook page's state
// said once, the add dialog's default events and a pending delivery's next attempt.

const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

/** Signs up, makes a live key (default scopes) and answers a REST caller with it. */
async function withKey(page: Page, request: APIRequestContext, label: string) {
  await signUp(page, label);
  const key = await createKey(page, 'Pages 26');
  await page.getByTestId('secret-done').click();
  const headers = { Authorization: `Bearer ${key}` };
  return {
    async post<T>(path: string, data: unknown): Promise<T> {
      const res = await request.post(path, { headers, data });
      expect(res.status(), `${path}: ${await res.text()}`).toBeLessThan(300);
      return (await res.json()) as T;
    },
    async get<T>(path: string): Promise<T> {
      const res = await request.get(path, { headers });
      expect(res.status()).toBe(200);
      return (await res.json()) as T;
    },
  };
}

/**
 * Every id on the page (IdText) is on one line: its text's line boxes share one top, its box ends
 * inside the viewport, and a cut id carries the whole id in its title.
 */
async function expectIdsOnOneLine(page: Page, atLeast: number) {
  const ids = await page.locator('[data-id-text] code').evaluateAll((els) =>
    els
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .map((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        const box = el.getBoundingClientRect();
        return { text: el.textContent ?? '', lines: tops.size, right: box.right, title: el.getAttribute('title') };
      }),
  );
  expect(ids.length).toBeGreaterThanOrEqual(atLeast);
  const width = page.viewportSize()!.width;
  for (const id of ids) {
    expect(id.lines, `${id.text} on one line`).toBe(1);
    expect(id.right, `${id.text} inside the viewport`).toBeLessThanOrEqual(width);
    expect(id.title).toBe(id.text);
  }
}

for (const viewport of VIEWPORTS) {
  const at = `${viewport.width}px`;
  test.describe(`at ${at}`, () => {
    test.use({ viewport });

    test(`an execution started by a schedule links to it; ids stay whole; the list says who started each run (${at})`, async ({ page, request }) => {
      test.setTimeout(120_000);
      const api = await withKey(page, request, `exec-${viewport.width}`);
      const agent = await api.post<{ id: string }>('/v1/agents', { name: 'Morning report', model: 'sandbox/echo' });
      await api.post(`/v1/agents/${agent.id}/execute`, { input: 'from the API', wait: true });

      // A schedule made in the dialog: its cron in words there and on the card.
      await page.goto(`/dashboard/agents/${agent.id}`);
      await page.getByTestId('create-schedule').click();
      const dialog = page.getByTestId('create-schedule-dialog');
      await expect(dialog.getByTestId('schedule-preview-words')).toHaveText('At 09:00, Monday through Friday');
      await dialog.getByTestId('schedule-input').fill('Write the morning report');
      await dialog.getByTestId('create-schedule-submit').click();
      const item = page.getByTestId('schedule-item');
      await expect(item.getByTestId('schedule-cron-words')).toHaveText('At 09:00, Monday through Friday');
      await expect(item.getByTestId('schedule-cron-text')).toHaveText('0 9 * * MON-FRI');
      const scheduleId = (await item.getAttribute('data-schedule-id'))!;

      // A playground run, then the schedule's run.
      await page.getByTestId('playground-input').fill('from the playground');
      await page.getByTestId('playground-send').click();
      await expect(page.getByTestId('playground-turn').last()).toHaveAttribute('data-status', 'succeeded');
      await item.getByTestId('schedule-run-now').click();
      await expect(page).toHaveURL(/\/dashboard\/executions\/exe_/);
      await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded');

      // Its page: the schedule in words, every id whole on one line, nothing sideways.
      const trigger = page.getByTestId('execution-trigger');
      await expect(trigger).toContainText('Schedule');
      await expect(trigger).toContainText('At 09:00, Monday through Friday');
      await expect(page.getByTestId('execution-schedule-id')).toHaveText(scheduleId);
      await expect(page.getByTestId('execution-agent-id')).toHaveText(agent.id);
      await expect(page.getByTestId('execution-conversation-id')).toHaveText(/^conv_/);
      await expectIdsOnOneLine(page, 4);
      await expectNoHorizontalScroll(page);
      await shot(page, `execution-schedule-${viewport.width}`);

      // The schedule link opens the schedule's own page.
      await page.getByTestId('execution-schedule-id').click();
      await expect(page).toHaveURL(`/dashboard/schedules/${scheduleId}`);
      await expect(page.getByTestId('schedule-words')).toHaveText('At 09:00, Monday through Friday');
      await expect(page.getByTestId('execution-item')).toHaveCount(1);
      await expectIdsOnOneLine(page, 2);
      await expectNoHorizontalScroll(page);
      await shot(page, `schedule-from-execution-${viewport.width}`);

      // The list: who started each run, newest first, readable at this width.
      await page.goto('/dashboard/executions');
      const rows = page.getByTestId('execution-row');
      await expect(rows).toHaveCount(3);
      await expect(page.getByTestId('execution-trigger-badge')).toHaveText(['Schedule', 'Playground', 'API']);
      if (viewport.width >= 1024) {
        await expect(page.getByRole('columnheader', { name: 'Started by' })).toBeVisible();
        // The table fits its card: no sideways scrolling at desktop width.
        const table = page.getByTestId('executions-table');
        expect(await table.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth)).toBe(true);
      }
      // Each badge whole, within the page's width (the cards stack down the page on a phone).
      for (const badge of await page.getByTestId('execution-trigger-badge').all()) {
        const box = (await badge.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      }
      await expectNoHorizontalScroll(page);
      await shot(page, `executions-trigger-${viewport.width}`);
    });

    test(`the agent page says its cron in words, writes every time one way, and offers the tool secret only with HTTP tools; unconfigured providers are flagged (${at})`, async ({ page, request }) => {
      test.setTimeout(90_000);
      const api = await withKey(page, request, `agent-${viewport.width}`);
      const models = await api.get<{ data: { provider: string; configured: boolean }[] }>('/v1/models');
      expect(models.data.find((m) => m.provider === 'openai')?.configured, 'the e2e server runs without OPENAI_API_KEY').toBe(false);
      const plain = await api.post<{ id: string }>('/v1/agents', { name: 'Plain echo', model: 'sandbox/echo' });
      const tooled = await api.post<{ id: string }>('/v1/agents', {
        name: 'Order helper',
        model: 'sandbox/echo',
        tools: [{ type: 'http', name: 'lookup_order', description: 'Looks an order up by its number.', url: 'https://93.184.215.14/orders', parameters: { type: 'object', properties: {} } }],
      });
      await api.post('/v1/agents', { name: 'GPT agent', model: 'openai/gpt-4o' });
      await api.post('/v1/schedules', { agentId: tooled.id, cron: '30 8 * * MON', timezone: 'Europe/Berlin', input: 'Weekly orders' });

      // The list: the unconfigured provider is flagged, with why in its title; the others are not.
      await page.goto('/dashboard/agents');
      const rows = page.getByTestId('agent-row');
      await expect(rows).toHaveCount(3);
      const gpt = rows.filter({ hasText: 'GPT agent' });
      const badge = gpt.getByTestId('provider-not-configured');
      await expect(badge).toHaveText(/Provider not configured/);
      await expect(badge).toHaveAttribute('title', /OPENAI_API_KEY/);
      await expect(badge).toBeInViewport({ ratio: 1 });
      await expect(page.getByTestId('provider-not-configured')).toHaveCount(1);
      await expectNoHorizontalScroll(page);
      await shot(page, `agents-provider-${viewport.width}`);

      // No HTTP tool, nothing signed: no "Rotate tool secret".
      await page.goto(`/dashboard/agents/${plain.id}`);
      await expect(page.getByTestId('agent-name')).toContainText('Plain echo');
      await expect(page.getByTestId('rotate-tool-secret')).toHaveCount(0);

      // With one: offered. The cron in words; the agent's dates and the schedule's in one format.
      await page.goto(`/dashboard/agents/${tooled.id}`);
      await expect(page.getByTestId('rotate-tool-secret')).toBeVisible();
      await expect(page.getByTestId('schedule-cron-words')).toHaveText('At 08:30, only on Monday');
      const format = /[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} \S+/;
      await expect(page.getByTestId('agent-created')).toHaveText(format);
      await expect(page.getByTestId('schedule-next')).toHaveText(new RegExp(`Next run in \\d+ (min|h|d) · ${format.source}`));
      await expect(page.getByTestId('schedule-next')).toContainText('08:30');
      await expectIdsOnOneLine(page, 1);
      await expectNoHorizontalScroll(page);
      await shot(page, `agent-page-${viewport.width}`);
    });

    test(`a webhook's state is said once, the dialog starts with the execution events, a pending delivery says when it is tried next (${at})`, async ({ page }) => {
      test.setTimeout(90_000);
      await signUp(page, `hook-${viewport.width}`);
      // An address that refuses: its deliveries fail and stay pending, waiting for a retry.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const url = `http://127.0.0.1:${port}/hook`;

      await page.goto('/dashboard/webhooks');
      await page.getByTestId('create-webhook').first().click();
      const dialog = page.getByTestId('create-webhook-dialog');
      for (const type of ['execution.started', 'execution.succeeded', 'execution.failed', 'execution.cancelled']) {
        await expect(dialog.getByTestId(`event-${type}`)).toBeChecked();
      }
      await expect(dialog.getByTestId('event-key.created')).not.toBeChecked();
      await expect(dialog.getByTestId('event-all')).not.toBeChecked();
      // Still a choice: one more, one less.
      await dialog.getByTestId('event-key.created').check();
      await dialog.getByTestId('event-execution.started').uncheck();
      await dialog.getByLabel('Endpoint URL').fill(url);
      await expectNoHorizontalScroll(page);
      await shot(page, `webhook-dialog-defaults-${viewport.width}`);
      await dialog.getByTestId('create-webhook-submit').click();
      await page.getByTestId('webhook-secret-done').click();
      await page.getByTestId('webhook-row').getByTestId('webhook-url').click();
      await expect(page).toHaveURL(/\/dashboard\/webhooks\/whk_/);

      const events = page.getByTestId('webhook-details-events');
      await expect(events).toContainText('execution.succeeded');
      await expect(events).toContainText('key.created');
      await expect(events).not.toContainText('execution.started');

      // "Enabled" once: the badge; the one action beside it says what it does.
      await expect(page.getByTestId('webhook-status')).toHaveText('Enabled');
      await expect(page.getByText('Enabled', { exact: true })).toHaveCount(1);
      const toggle = page.getByTestId('webhook-enabled-toggle');
      await expect(toggle).toHaveText('Disable');
      await toggle.click();
      await expect(page.getByTestId('webhook-status')).toHaveText('Disabled');
      await expect(page.getByText('Disabled', { exact: true })).toHaveCount(1);
      await expect(toggle).toHaveText('Enable');
      await toggle.click();
      await expect(page.getByTestId('webhook-status')).toHaveText('Enabled');

      // A delivery that failed waits for its retry: when, relative and absolute, on its row.
      await page.getByTestId('send-test-event').click();
      const delivery = page.getByTestId('delivery-row').first();
      await expect(delivery).toHaveAttribute('data-status', 'pending', { timeout: 20_000 });
      await expect(delivery.getByTestId('delivery-attempts')).not.toHaveText('0 attempts', { timeout: 20_000 });
      const next = delivery.getByTestId('delivery-next-attempt');
      await expect(next).toHaveText(/^Next attempt (in \d+ s|in \d+ min|due now) \(.*\d{1,2}:\d{2}:\d{2} \S+\)$/);
      // After the second failure the next try is minutes away.
      await expect(next).toHaveText(/^Next attempt in [45] min \(/, { timeout: 30_000 });
      await expect(next).toBeInViewport({ ratio: 1 });
      await expectIdsOnOneLine(page, 1);
      await expectNoHorizontalScroll(page);
      await shot(page, `webhook-pending-${viewport.width}`);
    });
  });
}
