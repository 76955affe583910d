import { readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, shot, signUp } from './helpers';

// The Usage page as a new user first sees it — one day of data in the 7-day range, a run that
// failed on a model without a price — on a laptop and on a phone: the top tables readable
// (cards on a phone), the cost card whole, the duration chart's lone points drawn whole inside
// the plot, the page never scrolling sideways, and each card's CSV a tidy table.

/** A REST call with a key; checks the status. */
async function call(request: APIRequestContext, secret: string, method: 'POST', path: string, status: number, data: object) {
  const res = await request.fetch(path, { method, headers: { Authorization: `Bearer ${secret}` }, data });
  expect(res.status(), `${method} ${path}`).toBe(status);
  return res.json() as Promise<Record<string, unknown>>;
}

/** Three runs that succeed on the sandbox, and one that fails at once on a live model without a price (no tokens). */
async function seed(page: Page, request: APIRequestContext) {
  const secret = await createKey(page, 'Layout key with a rather long name');
  await page.getByTestId('secret-done').click();
  const echo = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Customer support triage assistant', model: 'sandbox/echo' });
  for (const input of ['first question', 'second question', 'third question']) {
    expect((await call(request, secret, 'POST', `/v1/agents/${echo.id}/execute`, 200, { input, wait: true })).status).toBe('succeeded');
  }
  // The e2e server has no OpenAI key and no price table: the run fails before any token.
  const unpriced = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Unpriced helper', model: 'openai/gpt-4o-mini' });
  const failed = await call(request, secret, 'POST', `/v1/agents/${unpriced.id}/execute`, 200, { input: 'hello', wait: true });
  expect(failed.status).toBe('failed');
  expect((failed.usage as { totalTokens: number }).totalTokens).toBe(0);
}

type Box = { x: number; y: number; width: number; height: number };

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  expect(box, 'laid out').not.toBeNull();
  return box!;
}

/** `inner` lies wholly inside `outer` (to half a pixel). */
function expectInside(inner: Box, outer: Box, what: string) {
  expect(inner.x, `${what}: left edge`).toBeGreaterThanOrEqual(outer.x - 0.5);
  expect(inner.y, `${what}: top edge`).toBeGreaterThanOrEqual(outer.y - 0.5);
  expect(inner.x + inner.width, `${what}: right edge`).toBeLessThanOrEqual(outer.x + outer.width + 0.5);
  expect(inner.y + inner.height, `${what}: bottom edge`).toBeLessThanOrEqual(outer.y + outer.height + 0.5);
}

/** The element's text is not cut: it does not overflow its own box, and the box is inside `card`. */
async function expectWhole(element: Locator, card: Box, what: string) {
  await expect(element, what).toBeVisible();
  const overflow = await element.evaluate((el) => ({ x: el.scrollWidth - el.clientWidth, y: el.scrollHeight - el.clientHeight }));
  expect(overflow.x, `${what}: no text cut on the right`).toBeLessThanOrEqual(0);
  expect(overflow.y, `${what}: no text cut at the bottom`).toBeLessThanOrEqual(0);
  expectInside(await boxOf(element), card, what);
}

/**
 * A top table's column names can be read in full: the header cells of the table (laptop), or
 * on a phone, where each row is a card, the name above each value (its ::before).
 */
async function expectReadableColumns(page: Page, testId: string, labels: string[]) {
  const card = await boxOf(page.getByTestId(testId.replace(/-table$/, '')));
  const table = page.getByTestId(testId);
  const head = table.locator('thead');
  if (await head.isVisible()) {
    await expect(head.locator('th')).toHaveText(labels, { ignoreCase: true });
    for (const [i, label] of labels.entries()) await expectWhole(head.locator('th').nth(i), card, `${testId} header ${label}`);
    await expect(page.getByTestId(`${testId}-scroll-hint`)).toHaveCount(0);
    return;
  }
  const rows = table.locator('tbody tr');
  expect(await rows.count()).toBeGreaterThan(0);
  for (const row of await rows.all()) {
    await expectWhole(row.locator('th'), card, `${testId} row name`);
    const cells = row.locator('td');
    for (const [i, label] of labels.slice(1).entries()) {
      const cell = cells.nth(i);
      expect(await cell.evaluate((el) => getComputedStyle(el, '::before').content)).toBe(`"${label}"`);
      await expectWhole(cell, card, `${testId} ${label}`);
    }
  }
}

/** Downloads a card's CSV; its lines, checked to be one rectangular table. */
async function downloadCsv(page: Page, testId: string, file: string): Promise<string[][]> {
  const button = page.getByTestId(`${testId}-csv`);
  await button.scrollIntoViewIfNeeded();
  await expect(button).toBeInViewport({ ratio: 1 });
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^usage-live-7d-\\d{4}-\\d{2}-\\d{2}-${file}\\.csv$`));
  const text = await readFile(await download.path(), 'utf8');
  expect(text.endsWith('\r\n')).toBe(true);
  // No field here holds a comma, a quote or a line break (the names are plain): a split is a parse.
  const rows = text.slice(0, -2).split('\r\n').map((line) => line.split(','));
  const [header, ...body] = rows;
  expect(header!.every((h) => /^[a-z][a-z0-9_]*$/.test(h)), `${file}: one header row of column names`).toBe(true);
  for (const row of body) expect(row, `${file}: every row as wide as the header`).toHaveLength(header!.length);
  return rows;
}

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`the usage page at ${viewport.width} px`, () => {
    test.use({ viewport });

    test('one day of data: readable top tables, the whole cost card, lone points inside the chart, tidy CSVs', async ({ page, request }) => {
      test.setTimeout(150_000);
      await signUp(page, `usage-layout-${viewport.width}`);
      await seed(page, request);

      // Usage is counted within seconds: reload until the page has it (slowly on a busy machine).
      // Executions are counted as they end, requests when the web process flushes its counts
      // (every 2 s): wait for both, or the top keys may still be empty on the page loaded.
      await page.goto('/dashboard/usage');
      await expect(async () => {
        await page.reload();
        await expect(page.getByTestId('usage-content').or(page.getByTestId('usage-empty'))).toBeVisible({ timeout: 30_000 });
        await expect(page.getByTestId('summary-executions-value')).toHaveText('4', { timeout: 1_000 });
        await expect(page.getByTestId('top-keys-table-row')).toHaveCount(1, { timeout: 1_000 });
      }).toPass({ timeout: 120_000, intervals: [1_000] });
      await expect(page.getByTestId('top-agents-table-row')).toHaveCount(2);

      // The failed run used no tokens: it cost nothing, and the range's cost is known.
      const cost = page.getByTestId('summary-cost');
      await expect(page.getByTestId('summary-cost-value')).toHaveText('$0.00');
      await expect(page.getByTestId('summary-cost-detail')).toHaveText('From the price table');
      const costCard = await boxOf(cost);
      for (const part of ['summary-cost-value', 'summary-cost-detail']) await expectWhole(page.getByTestId(part), costCard, part);
      for (const figure of ['executions', 'failure-rate', 'tokens', 'p95', 'requests']) {
        await expectWhole(page.getByTestId(`summary-${figure}-detail`), await boxOf(page.getByTestId(`summary-${figure}`)), `${figure} detail`);
      }
      await expect(page.getByTestId('chart-cost').locator('.recharts-wrapper')).not.toContainText('unknown');

      // The top tables: every column's name in full, inside the card.
      await expectReadableColumns(page, 'top-agents-table', ['Agent', 'Executions', 'Failure rate', 'Tokens', 'Estimated cost', 'p95']);
      await expectReadableColumns(page, 'top-keys-table', ['Key', 'Requests', 'Errors', '429s', '401s']);
      await expect(page.getByTestId('top-agents-table').locator('tbody tr').filter({ hasText: 'Unpriced helper' }).locator('td').nth(3)).toHaveText('$0.00');

      // Duration: the only day's p50 and p95 are solid markers, whole, inside the plot.
      const duration = page.getByTestId('chart-duration');
      const lone = duration.locator('circle[data-lone]');
      await expect(lone).toHaveCount(2);
      const plot = await boxOf(duration.locator('.recharts-cartesian-grid'));
      for (const marker of await lone.all()) {
        const box = await boxOf(marker);
        expect(box.width, 'a marker one can see').toBeGreaterThanOrEqual(8);
        expectInside(box, plot, `${await marker.getAttribute('data-lone')} marker`);
      }

      // A wide chart table scrolls inside its card, and says so on a phone.
      await page.getByTestId('chart-requests-toggle').click();
      const hint = page.getByTestId('chart-requests-table-scroll-hint');
      if (viewport.width < 640) {
        await expect(hint).toBeVisible();
        await expect(hint).toHaveText(/Scroll sideways/);
        await expect(page.getByTestId('chart-requests-table-scroller')).toHaveAttribute('role', 'region');
      } else {
        await expect(hint).toHaveCount(0);
      }
      await expectNoHorizontalScroll(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, `usage-layout-${viewport.width}`);

      // Each card downloads its own tidy table: the 7 days, the top agents.
      const days = await downloadCsv(page, 'chart-executions', 'executions');
      expect(days[0]).toEqual(['bucket_start', 'bucket_end', 'executions', 'succeeded', 'failed', 'cancelled']);
      expect(days).toHaveLength(8);
      for (const row of days.slice(1)) expect(row[0]).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
      expect(days.slice(1).reduce((sum, row) => sum + Number(row[2]), 0)).toBe(4);
      const agents = await downloadCsv(page, 'top-agents', 'top-agents');
      expect(agents[0]).toEqual(['agent_id', 'agent_name', 'deleted', 'executions', 'succeeded', 'failed', 'cancelled', 'failure_rate', 'total_tokens', 'cost_usd', 'p95_ms']);
      expect(agents.slice(1).map((row) => [row[1], row[3], row[9]])).toEqual([
        ['Customer support triage assistant', '3', '0'],
        ['Unpriced helper', '1', '0'],
      ]);
      const models = await downloadCsv(page, 'chart-cost', 'cost-by-model');
      expect(models.find((row) => row[0] === 'openai/gpt-4o-mini')?.at(-1)).toBe('0');
    });
  });
}
