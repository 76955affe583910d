import { expect, test, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, shot, signUp } from './helpers';

// Issue 44, item 10: one way of writing a time on every page — "Dec 5, 2026, 22:36 CET", the
// viewer's zone named (here Berlin), relative ("3 min ago") where a glance helps, with the
// absolute form on hover — and people's words on badges: "Awaiting approval", "Tool calls",
// never `requires_action` or `tool-calls`. At 1280 and 390 px.

const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];
/** A zone by its name (the viewer's here: CET; a schedule's own: EST…) or its offset. */
const ZONE = '([A-Z]{2,5}|GMT[+-][\\d:]+)';
const ABSOLUTE = new RegExp(`^[A-Z][a-z]{2} \\d{1,2}, \\d{4}, \\d{2}:\\d{2}(:\\d{2})? ${ZONE}$`);
const RELATIVE = /^(just now|in \d+ (min|h|d|mo|y)|\d+ (min|h|d|mo|y) ago)$/;
const TWO_LINES = new RegExp(`^[A-Z][a-z]{2} \\d{1,2}, \\d{4}\\n\\d{2}:\\d{2} ${ZONE}$`);
const PARAMETERS = { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] };
const refund = (approval: 'never' | 'always') => ({ type: 'http', name: 'refund', description: 'Refunds an order.', url: 'http://127.0.0.1:9/refund', method: 'POST', parameters: PARAMETERS, approval });

/** Every <time> on the page is written one of the dashboard's ways, its title (if any) absolute; no 12-hour clock, no bare numeric date; every badge in words. */
async function expectOneFormat(page: Page): Promise<number> {
  const times = await page.locator('time').evaluateAll((els) => els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => ({ text: (e as HTMLElement).innerText.trim(), title: e.getAttribute('title') })));
  for (const { text, title } of times) {
    expect(ABSOLUTE.test(text) || RELATIVE.test(text) || TWO_LINES.test(text), `"${text}" is one of the formats`).toBe(true);
    if (title) expect(title).toMatch(ABSOLUTE);
  }
  const body = await page.locator('body').innerText();
  expect(body).not.toMatch(/\d{1,2}:\d{2}(:\d{2})? ?(AM|PM)\b/);
  expect(body).not.toMatch(/\b\d{1,2}\/\d{1,2}\/\d{4}\b/);
  // Badges say words; identifiers set as code (scopes, event types) are not statuses.
  const badges = await page.locator('span.rounded-md.ring-inset:not(.font-mono)').allInnerTexts();
  for (const badge of badges) expect(badge).not.toMatch(/_|tool-calls|^[a-z]/);
  return times.length;
}

for (const viewport of VIEWPORTS) {
  const at = `${viewport.width}px`;
  test.describe(`at ${at}`, () => {
    test.use({ viewport, timezoneId: 'Europe/Berlin' });

    test(`statuses and steps in words, every date one format with its zone (${at})`, async ({ page, request }) => {
      test.setTimeout(150_000);
      await signUp(page, `dates-${viewport.width}`);
      const key = await createKey(page, 'Dates');
      await page.getByTestId('secret-done').click();
      const headers = { Authorization: `Bearer ${key}` };
      const post = async <T,>(path: string, data: unknown): Promise<T> => {
        const res = await request.post(path, { headers, data });
        expect(res.status(), await res.text()).toBeLessThan(300);
        return (await res.json()) as T;
      };
      const caller = await post<{ id: string }>('/v1/agents', { name: 'Tool caller', model: 'sandbox/echo', tools: [refund('never')] });
      const careful = await post<{ id: string }>('/v1/agents', { name: 'Careful', model: 'sandbox/echo', tools: [refund('always')] });
      const called = await post<{ id: string }>(`/v1/agents/${caller.id}/execute`, { input: 'please refund order 7', wait: true });
      const paused = await post<{ id: string }>(`/v1/agents/${careful.id}/execute`, { input: 'please refund order 8' });
      await post('/v1/schedules', { agentId: caller.id, cron: '0 9 * * *', timezone: 'America/New_York', input: 'daily' });

      // A step that called a tool says so in words; its value stays in the attribute.
      await page.goto(`/dashboard/executions/${called.id}`);
      const reason = page.getByTestId('step-finish-reason').first();
      await expect(reason).toHaveText('Tool calls');
      await expect(reason).toHaveAttribute('data-reason', 'tool-calls');
      await expect(page.getByTestId('execution-facts')).toContainText(/[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2} CES?T/);
      // The page may still be swapping its first render for the live one (seen with 2 workers).
      await expect(page.locator('time:visible').first()).toBeVisible();
      expect(await expectOneFormat(page)).toBeGreaterThan(0);
      await expectNoHorizontalScroll(page);
      await shot(page, `dates-execution-steps-${viewport.width}`);

      // A paused run: "Awaiting approval" on its page and in the list.
      await page.goto(`/dashboard/executions/${paused.id}`);
      await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'requires_action', { timeout: 30_000 });
      await expect(page.getByTestId('execution-status').first()).toHaveText('Awaiting approval');
      await expectOneFormat(page);
      await shot(page, `dates-execution-paused-${viewport.width}`);
      await page.goto('/dashboard/executions');
      const row = page.locator(`[data-testid="execution-row"][data-execution-id="${paused.id}"]`);
      await expect(row.getByTestId('execution-status')).toHaveText('Awaiting approval');
      await expect(page.getByTestId('filter-status').locator('option[value="requires_action"]')).toHaveText('Awaiting approval');
      expect(await expectOneFormat(page)).toBeGreaterThanOrEqual(2);
      await expectNoHorizontalScroll(page);
      await shot(page, `dates-executions-${viewport.width}`);

      // The other pages with dates: each in one of the formats, the zone always named.
      for (const path of ['/dashboard/keys', '/dashboard/agents', `/dashboard/agents/${caller.id}`, '/dashboard/schedules', '/dashboard/conversations', '/dashboard/events', '/dashboard/audit', '/dashboard/members']) {
        await page.goto(path);
        await expect(page.locator('main h1').first()).toBeVisible();
        await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
        await expectOneFormat(page);
        await expectNoHorizontalScroll(page);
      }
      // A schedule's times are in its own zone, named.
      await page.goto('/dashboard/schedules');
      await expect(page.getByTestId('schedule-next').first()).toContainText(/09:00 (EST|EDT)/);
      await page.goto('/dashboard/keys');
      await shot(page, `dates-keys-${viewport.width}`);
    });
  });
}
