import { readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, openSection, shot, signUp } from './helpers';

// The Usage page against real usage: executions run and requests made over REST with real keys,
// then counted by the server (within seconds) and shown in the figures, charts' tables, the top
// tables, the CSV downloads and the keys page.

const n = (value: number) => value.toLocaleString('en-US');

/** A REST call with a key; checks the status. */
async function call(request: APIRequestContext, secret: string, method: 'GET' | 'POST' | 'DELETE', path: string, status: number, data?: object) {
  const res = await request.fetch(path, { method, headers: { Authorization: `Bearer ${secret}` }, ...(data ? { data } : {}) });
  expect(res.status(), `${method} ${path}`).toBe(status);
  return res.json() as Promise<Record<string, unknown>>;
}

/** Reloads until `locator` shows `text`: usage is counted within seconds, not at once. */
async function reloadUntil(page: Page, locator: Locator, text: string | RegExp) {
  await expect(async () => {
    await page.reload();
    await expect(locator).toHaveText(text, { timeout: 3_000 });
  }).toPass({ timeout: 30_000, intervals: [1_000] });
}

/** The numbers of one column of a table (by its header), summed over its rows. */
async function columnSum(table: Locator, header: string): Promise<number> {
  const headers = await table.locator('thead th').allInnerTexts();
  const index = headers.findIndex((h) => h.trim().toLowerCase() === header.toLowerCase());
  expect(index, `column ${header}`).toBeGreaterThanOrEqual(0);
  const cells = await table.locator(`tbody tr > :nth-child(${index + 1})`).allInnerTexts();
  return cells.reduce((sum, c) => sum + Number(c.replace(/,/g, '')), 0);
}

test('the usage page shows real executions and requests, per environment, as charts, tables and CSV', async ({ page, request }) => {
  test.setTimeout(180_000);
  await signUp(page, 'usage');

  // Nothing yet: the empty state says how to get usage and leads to the agents.
  await page.getByTestId('nav-usage').click();
  await expect(page).toHaveURL(/\/dashboard\/usage$/);
  await expect(page.getByTestId('nav-usage')).toHaveAttribute('aria-current', 'page');
  const empty = page.getByTestId('usage-empty');
  await expect(empty).toContainText('No live usage in the last 7 days');
  await expect(empty).toContainText('Run an agent');
  await expect(empty.getByRole('link', { name: 'Go to agents' })).toHaveAttribute('href', '/dashboard/agents');

  // Two live keys: one does the work, the other makes one call, is revoked, and is refused once.
  await page.getByTestId('nav-keys').click();
  const secret = await createKey(page, 'Usage key');
  await page.getByTestId('secret-done').click();
  const oldSecret = await createKey(page, 'Old key');
  await page.getByTestId('secret-done').click();
  const keyId = await page.getByTestId('key-row').filter({ hasText: 'Usage key' }).getAttribute('data-key-id');
  const oldKeyId = await page.getByTestId('key-row').filter({ hasText: 'Old key' }).getAttribute('data-key-id');

  // Six executions: three succeed, one fails (its 1 s timeout), one is cancelled, and one belongs
  // to an agent deleted afterwards. 13 requests with this key, one of them a 404.
  const echo = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Echo helper', model: 'sandbox/echo' });
  const strict = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Strict helper', model: 'sandbox/slow', timeoutSeconds: 1 });
  const slow = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Slow helper', model: 'sandbox/slow' });
  const temp = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Temporary helper', model: 'sandbox/echo' });
  for (const input of ['first question', 'second question', 'third question']) {
    expect((await call(request, secret, 'POST', `/v1/agents/${echo.id}/execute`, 200, { input, wait: true })).status).toBe('succeeded');
  }
  const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
  const timedOut = await call(request, secret, 'POST', `/v1/agents/${strict.id}/execute`, 200, { input: long, wait: true });
  expect(timedOut.status).toBe('failed');
  const queued = await call(request, secret, 'POST', `/v1/agents/${slow.id}/execute`, 202, { input: long });
  expect((await call(request, secret, 'POST', `/v1/executions/${queued.id}/cancel`, 200)).status).toBe('cancelled');
  expect((await call(request, secret, 'POST', `/v1/agents/${temp.id}/execute`, 200, { input: 'short-lived', wait: true })).status).toBe('succeeded');
  await call(request, secret, 'DELETE', `/v1/agents/${temp.id}`, 200);
  await call(request, secret, 'GET', '/v1/agents/agt_01JD8X3ZQ2N6W5V4T3S2R1P0MK', 404);

  // The old key lists the executions (their tokens are the expected total), then is revoked.
  const listed = (await call(request, oldSecret, 'GET', '/v1/executions?limit=100', 200)) as { data: { usage: { totalTokens: number } }[] };
  expect(listed.data).toHaveLength(6);
  const tokens = listed.data.reduce((sum, e) => sum + e.usage.totalTokens, 0);
  expect(tokens).toBeGreaterThan(0);
  const oldRow = page.getByTestId('key-row').filter({ hasText: 'Old key' });
  await oldRow.getByRole('button', { name: 'Revoke Old key' }).click();
  await page.getByTestId('revoke-confirm').click();
  await expect(oldRow).toHaveCount(0);
  await call(request, oldSecret, 'GET', '/v1/agents', 401);

  // The keys page: each key's requests in the last 24 hours.
  await reloadUntil(page, page.getByTestId('key-row').filter({ hasText: 'Usage key' }).getByTestId('key-requests-24h'), /13$/);
  await shot(page, 'keys-requests-1280');

  // The usage page counts it all (requests are flushed every few seconds: reload until they are).
  await page.getByTestId('nav-usage').click();
  await expect(page).toHaveURL(/\/dashboard\/usage$/);
  await reloadUntil(page, page.getByTestId('summary-requests-value'), '15');
  await expect(page.getByTestId('summary-executions-value')).toHaveText('6');
  await expect(page.getByTestId('summary-executions')).toContainText('4 succeeded');
  await expect(page.getByTestId('summary-failure-rate-value')).toHaveText('16.7%');
  await expect(page.getByTestId('summary-failure-rate')).toContainText('1 failed · 1 cancelled');
  await expect(page.getByTestId('summary-tokens-value')).toHaveAttribute('title', `${n(tokens)} tokens`);
  await expect(page.getByTestId('summary-cost-value')).toHaveText('$0.00');
  await expect(page.getByTestId('summary-p95-value')).toHaveText(/\d/);
  await expect(page.getByTestId('summary-requests')).toContainText('2 errors');

  // Top agents: names link to the agent, the deleted one shows its id; failure rates and p95s.
  const agents = page.getByTestId('top-agents-table');
  await expect(page.getByTestId('top-agents-table-row')).toHaveCount(4);
  const echoRow = agents.locator(`tr[data-row="${echo.id}"]`);
  await expect(echoRow.getByRole('link')).toHaveAttribute('href', `/dashboard/agents/${echo.id}`);
  await expect(echoRow).toContainText('Echo helper');
  await expect(echoRow.locator('td').nth(0)).toHaveText('3');
  await expect(echoRow.locator('td').nth(1)).toHaveText('0%');
  await expect(echoRow.locator('td').nth(4)).toHaveText(/^\d[\d.]* (ms|s)$/);
  await expect(agents.locator(`tr[data-row="${strict.id}"] td`).nth(1)).toHaveText('100%');
  const deleted = agents.locator(`tr[data-row="${temp.id}"]`);
  await expect(deleted.getByTestId('agent-deleted')).toHaveText('Deleted');
  await expect(deleted).toContainText(String(temp.id));
  await expect(deleted.getByRole('link')).toHaveCount(0);

  // Top keys: requests, errors, 429s, 401s; the revoked key still counted, and marked.
  const keys = page.getByTestId('top-keys-table');
  await expect(keys.locator(`tr[data-row="${keyId}"]`)).toContainText('Usage key');
  await expect(keys.locator(`tr[data-row="${keyId}"] td`)).toHaveText(['13', '1', '0', '0']);
  await expect(keys.locator(`tr[data-row="${oldKeyId}"] td`)).toHaveText(['2', '1', '0', '1']);
  await expect(keys.locator(`tr[data-row="${oldKeyId}"]`).getByTestId('key-revoked')).toHaveText('Revoked');

  // Every chart is drawn, and its numbers are in its table (the range is 7 day buckets).
  for (const chart of ['chart-executions', 'chart-tokens', 'chart-cost', 'chart-duration', 'chart-requests']) {
    await expect(page.getByTestId(chart).locator('.recharts-wrapper > svg').first()).toBeVisible();
  }
  await expect(page.getByTestId('chart-executions').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await page.getByTestId('chart-executions-toggle').click();
  const statusTable = page.getByTestId('chart-executions-table');
  await expect(statusTable.locator('tbody tr')).toHaveCount(7);
  expect(await columnSum(statusTable, 'Succeeded')).toBe(4);
  expect(await columnSum(statusTable, 'Failed')).toBe(1);
  expect(await columnSum(statusTable, 'Cancelled')).toBe(1);
  await page.getByTestId('chart-cost-toggle').click();
  await expect(page.getByTestId('chart-cost-table').locator('tbody tr')).toHaveText([/sandbox\/echo\s*4\s*[\d,]+\s*\$0\.00/, /sandbox\/slow\s*2\s*[\d,]+\s*\$0\.00/]);
  await shot(page, 'usage-1280');

  // 24 h: hour buckets, in the address.
  await page.getByTestId('range-24h').click();
  await expect(page).toHaveURL(/\?range=24h$/);
  await expect(page.getByTestId('range-24h')).toHaveAttribute('aria-checked', 'true');
  await expect(statusTable.locator('tbody tr')).toHaveCount(24);
  await expect(page.getByTestId('usage-content')).not.toHaveAttribute('aria-busy', 'true');
  await expect(page.getByTestId('summary-executions-value')).toHaveText('6');
  await page.getByTestId('chart-requests-toggle').click();
  const requestTable = page.getByTestId('chart-requests-table');
  expect(await columnSum(requestTable, 'Total')).toBe(15);
  expect(await columnSum(requestTable, 'Succeeded')).toBe(13);
  expect(await columnSum(requestTable, 'Client errors')).toBe(1);
  expect(await columnSum(requestTable, '401')).toBe(1);
  await shot(page, 'usage-24h-1280');

  // Each card downloads its own tidy CSV (one header row, every row as wide): the hours, the tables.
  const download = async (card: string) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`${card}-csv`).click()]);
    const lines = (await readFile(await file.path(), 'utf8')).split('\r\n');
    expect(lines.pop()).toBe('');
    const [header, ...rows] = lines;
    for (const row of rows) expect(row.split(',')).toHaveLength(header!.split(',').length);
    return { name: file.suggestedFilename(), header, rows };
  };
  const hours = await download('chart-executions');
  expect(hours.name).toMatch(/^usage-live-24h-\d{4}-\d{2}-\d{2}-executions\.csv$/);
  expect(hours.header).toBe('bucket_start,bucket_end,executions,succeeded,failed,cancelled');
  expect(hours.rows).toHaveLength(24);
  expect(hours.rows.reduce((sum, row) => sum + Number(row.split(',')[2]), 0)).toBe(6);
  const tokenRows = (await download('chart-tokens')).rows;
  expect(tokenRows.reduce((sum, row) => sum + Number(row.split(',')[4]), 0)).toBe(tokens);
  expect((await download('chart-requests')).rows.reduce((sum, row) => sum + Number(row.split(',')[2]), 0)).toBe(15);
  expect((await download('chart-cost')).rows).toEqual([expect.stringMatching(/^sandbox\/echo,4,\d+,\d+,\d+,0$/), expect.stringMatching(/^sandbox\/slow,2,\d+,\d+,\d+,0$/)]);
  const agentRows = (await download('top-agents')).rows;
  expect(agentRows).toHaveLength(4);
  expect(agentRows[0]).toMatch(new RegExp(`^${echo.id},Echo helper,false,3,3,0,0,0,\\d+,0,\\d+$`));
  expect(agentRows).toContainEqual(expect.stringMatching(new RegExp(`^${strict.id},Strict helper,false,1,0,1,0,1,\\d+,0,`)));
  expect(agentRows).toContainEqual(expect.stringMatching(new RegExp(`^${temp.id},,true,1,1,0,0,0,`)));
  expect((await download('top-keys')).rows).toEqual([`${keyId},Usage key,false,13,1,0,0`, `${oldKeyId},,true,2,1,0,1`]);

  // Test data is another world: nothing there yet; back in live, the numbers return.
  await page.getByTestId('env-test').click();
  await expect(page.getByTestId('usage-empty')).toContainText('No test usage in the last 24 hours');
  await page.getByTestId('env-live').click();
  await expect(page.getByTestId('summary-executions-value')).toHaveText('6');

  // A phone: the charts shrink to fit, wide tables scroll inside their card, the top tables'
  // rows are cards, the page never sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('range-7d').click();
  await expect(page.getByTestId('summary-requests-value')).toHaveText('15');
  await page.getByTestId('chart-requests-toggle').click();
  await expectNoHorizontalScroll(page);
  const chartWidth = await page.getByTestId('chart-requests').locator('.recharts-wrapper > svg').first().evaluate((svg) => svg.getBoundingClientRect().width);
  expect(chartWidth).toBeLessThanOrEqual(390);
  expect(chartWidth).toBeGreaterThan(250);
  const scroller = page.getByTestId('chart-requests-table-scroller');
  expect(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth && getComputedStyle(el).overflowX === 'auto')).toBe(true);
  await expect(page.getByTestId('chart-requests-table-scroll-hint')).toBeVisible();
  expect(await page.getByTestId('top-agents-table-scroller').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await expect(page.getByTestId('top-agents-table').locator('thead')).toBeHidden();
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const id of ['range-24h', 'range-90d', 'chart-executions-csv']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
  await shot(page, 'usage-390');

  // The keys page's request counts on a phone too.
  await openSection(page, 'keys');
  await expect(page.getByTestId('key-row').getByTestId('key-requests-24h')).toHaveText(/Requests \(24 h\)\s*13$/);
  await expectNoHorizontalScroll(page);
  await shot(page, 'keys-requests-390');
});

test('a failed load of the usage shows an error with a working retry', async ({ page }) => {
  await signUp(page, 'usage-errors');
  await page.route('**/api/trpc/**', (route) => (route.request().url().includes('analytics.') ? route.abort() : route.fallback()));
  await page.goto('/dashboard/usage?range=30d');
  await expect(page.getByTestId('usage-loading')).toBeVisible();
  const failure = page.getByTestId('usage-error');
  await expect(failure).toBeVisible({ timeout: 20_000 });
  await expect(failure).toContainText('Usage could not be loaded');
  await expect(page.getByRole('button', { name: /as CSV$/ })).toHaveCount(0);
  await page.unroute('**/api/trpc/**');
  await failure.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('usage-empty')).toContainText('No live usage in the last 30 days');
});

test('a run that used no tokens costs $0.00 even on a live model without a price, never unknown', async ({ page, request }) => {
  await signUp(page, 'usage-cost');
  const secret = await createKey(page, 'Cost key');
  await page.getByTestId('secret-done').click();
  // The e2e server has no OpenAI key and no price table: the run fails before any token.
  const unpriced = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Unpriced helper', model: 'openai/gpt-4o-mini' });
  expect((await call(request, secret, 'POST', `/v1/agents/${unpriced.id}/execute`, 200, { input: 'hello', wait: true })).status).toBe('failed');
  const echo = await call(request, secret, 'POST', '/v1/agents', 201, { name: 'Free helper', model: 'sandbox/echo' });
  expect((await call(request, secret, 'POST', `/v1/agents/${echo.id}/execute`, 200, { input: 'hello', wait: true })).status).toBe('succeeded');

  await page.goto('/dashboard/usage');
  await reloadUntil(page, page.getByTestId('summary-executions-value'), '2');
  await expect(page.getByTestId('summary-cost-value')).toHaveText('$0.00');
  await expect(page.getByTestId('summary-cost')).toContainText('From the price table');
  const chart = page.getByTestId('chart-cost');
  await expect(chart.locator('.recharts-wrapper')).not.toContainText('unknown');
  await page.getByTestId('chart-cost-toggle').click();
  await expect(page.getByTestId('chart-cost-table').locator(`tr[data-row="openai/gpt-4o-mini"] td`)).toHaveText(['1', '0', '$0.00']);
  await expect(page.getByTestId('chart-cost-table').locator(`tr[data-row="sandbox/echo"] td`).last()).toHaveText('$0.00');
  await expect(page.getByTestId('top-agents-table').locator(`tr[data-row="${unpriced.id}"] td`).nth(3)).toHaveText('$0.00');
  await shot(page, 'usage-zero-token-cost-1280');
});
