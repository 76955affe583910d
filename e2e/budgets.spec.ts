import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, openSection, shot, signUp } from './helpers';

// Budgets (docs/budgets.md) in a real browser: created, edited and deleted on the Budgets page,
// filled by real runs (the sandbox model: $0, but its tokens count), a blocking budget that is
// spent refusing the next run, and the workspace's daily USD cap marked on the Usage page.

interface BudgetView {
  id: string;
  timezone: string;
  periodStart: string;
  resetsAt: string | null;
  spent: { tokens: number };
}

/** A REST call with a key; checks the status. */
async function call<T = Record<string, unknown>>(request: APIRequestContext, secret: string, method: 'GET' | 'POST', path: string, status: number, data?: object): Promise<T> {
  const res = await request.fetch(path, { method, headers: { Authorization: `Bearer ${secret}` }, ...(data ? { data } : {}) });
  expect(res.status(), `${method} ${path}`).toBe(status);
  return res.json() as Promise<T>;
}

/** Reloads until `check` passes: spend is read when the page loads (and every 15 s). */
async function reloadUntil(page: Page, check: () => Promise<void>) {
  await expect(async () => {
    await page.reload();
    await check();
  }).toPass({ timeout: 30_000, intervals: [1_000] });
}

/** Fills and submits the New budget dialog. */
async function createBudget(
  page: Page,
  b: { name: string; target?: { type: 'agent' | 'key'; label: string }; unit: 'usd' | 'tokens'; amount: string; period: 'day' | 'week' | 'month' | 'total'; timezone?: string; action?: 'notify' },
) {
  await page.getByTestId('create-budget').first().click();
  const dialog = page.getByTestId('budget-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Name').fill(b.name);
  if (b.target) {
    await dialog.getByTestId(`budget-target-${b.target.type}`).check();
    await dialog.getByTestId('budget-target-id').selectOption({ label: b.target.label });
  }
  await dialog.getByTestId('budget-unit').selectOption(b.unit);
  await dialog.getByTestId('budget-amount').fill(b.amount);
  await dialog.getByTestId('budget-period').selectOption(b.period);
  if (b.timezone) await dialog.getByTestId('budget-timezone').fill(b.timezone);
  if (b.action) await dialog.getByTestId(`budget-action-${b.action}`).check();
  await dialog.getByTestId('budget-submit').click();
  await expect(dialog).toBeHidden();
  return page.getByTestId('budget-card').filter({ has: page.getByTestId('budget-name').getByText(b.name, { exact: true }) });
}

/** An instant as the page writes it in a zone (formatInZone), computed by the browser. */
/** The day and time of `iso` in `timeZone` as the dashboard writes them ("Dec 5, 2026, 00:00"; its zone's name follows). */
function inZone(page: Page, iso: string, timeZone: string): Promise<string> {
  return page.evaluate(
    ([at, zone]) => {
      const date = new Date(at!);
      const day = new Intl.DateTimeFormat('en-US', { timeZone: zone, month: 'short', day: 'numeric', year: 'numeric' }).format(date);
      const time = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(date);
      return `${day}, ${time}`;
    },
    [iso, timeZone],
  );
}

/** The fill's width as a share of its bar's. */
async function fillShare(card: Locator): Promise<number> {
  const [bar, fill] = [await card.getByTestId('budget-bar').boundingBox(), await card.getByTestId('budget-bar-fill').boundingBox()];
  return fill!.width / bar!.width;
}

test('budgets: create on the workspace and an agent, filled by runs, exceeded, edited and deleted; marked on the Usage page', async ({ page, request }) => {
  test.setTimeout(180_000);
  await signUp(page, 'budgets');
  const secret = await createKey(page, 'Budgets key');
  await page.getByTestId('secret-done').click();
  const agent = await call<{ id: string }>(request, secret, 'POST', '/v1/agents', 201, { name: 'Budgeted helper', model: 'sandbox/echo' });

  // Nothing yet: the empty state offers to create one.
  await openSection(page, 'budgets');
  await expect(page).toHaveURL(/\/dashboard\/budgets$/);
  await expect(page.getByTestId('nav-budgets')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('budgets-empty')).toContainText('No live budgets yet');

  // The form says what is missing before anything is sent.
  await page.getByTestId('create-budget').click();
  const dialog = page.getByTestId('budget-dialog');
  await dialog.getByTestId('budget-submit').click();
  await expect(dialog.getByText('Give the budget a name.')).toBeVisible();
  await expect(dialog.getByText('Enter the limit.')).toBeVisible();
  await dialog.getByTestId('budget-target-agent').check();
  await dialog.getByTestId('budget-submit').click();
  await expect(dialog.getByText('Choose the agent.')).toBeVisible();
  // The pickers offer this environment's agents and keys.
  await expect(dialog.getByTestId('budget-target-id').locator('option')).toHaveText(['Choose the agent', 'Budgeted helper']);
  await dialog.getByTestId('budget-target-key').check();
  await expect(dialog.getByTestId('budget-target-id').locator('option')).toHaveText(['Choose the key', /^Budgets key \(.+…\)$/]);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();

  // A token budget on the workspace, per day in New York (its midnight is 04:00 or 05:00 UTC).
  const workspace = await createBudget(page, { name: 'Workspace tokens', unit: 'tokens', amount: '100,000', period: 'day', timezone: 'America/New_York' });
  await expect(workspace.getByTestId('budget-target')).toHaveText('the whole workspace');
  await expect(workspace.getByTestId('budget-spent')).toHaveText('0 tokens');
  await expect(workspace.getByTestId('budget-limit')).toHaveText('100,000 tokens');
  await expect(workspace.getByTestId('budget-percent')).toHaveText('0%');
  await expect(workspace.getByTestId('budget-status')).toHaveText('Within limit');
  await expect(workspace.getByTestId('budget-action')).toHaveText('Blocking');
  await expect(workspace.getByTestId('budget-bar')).toBeVisible();
  const workspaceId = (await workspace.getAttribute('data-budget-id'))!;
  const view = await call<BudgetView>(request, secret, 'GET', `/v1/budgets/${workspaceId}`, 200);
  expect(view.timezone).toBe('America/New_York');
  await expect(workspace.getByTestId('budget-period')).toContainText('Daily, from local midnight in America/New_York');
  await expect(workspace.getByTestId('budget-period')).toContainText(await inZone(page, view.periodStart, view.timezone));
  await expect(workspace.getByTestId('budget-reset')).toContainText(await inZone(page, view.resetsAt!, view.timezone));
  await expect(workspace.getByTestId('budget-reset')).toContainText('00:00');
  await expect(workspace.getByTestId('budget-forecast')).toContainText('≈ 0 tokens by the reset');

  // A weekly one on the agent, of 30 tokens: one run fits in it, the next one's prompt does not.
  const onAgent = await createBudget(page, { name: 'Helper cap', target: { type: 'agent', label: 'Budgeted helper' }, unit: 'tokens', amount: '30', period: 'week', timezone: 'Europe/Berlin' });
  await expect(onAgent.getByTestId('budget-target')).toHaveText('agent Budgeted helper');
  await expect(onAgent.getByTestId('budget-period')).toContainText('Weekly, from Monday, local midnight in Europe/Berlin');
  await expect(page.getByTestId('budgets-count')).toHaveText('2 budgets');

  // A run: both budgets count its tokens (the page shows them once reloaded).
  const run = await call<{ status: string; usage: { totalTokens: number } }>(request, secret, 'POST', `/v1/agents/${agent.id}/execute`, 200, { input: 'How much is left this week?', wait: true });
  expect(run.status).toBe('succeeded');
  const tokens = run.usage.totalTokens;
  expect(tokens).toBeGreaterThan(0);
  expect(tokens).toBeLessThan(30);
  const n = (v: number) => v.toLocaleString('en-US');
  await reloadUntil(page, () => expect(workspace.getByTestId('budget-spent')).toHaveText(`${n(tokens)} tokens`, { timeout: 2_000 }));
  await expect(workspace.getByTestId('budget-forecast')).not.toContainText('≈ 0 tokens');

  // A prompt more than what is left: the run does not start, and the agent's budget is exceeded
  // for the period (docs/budgets.md, "Reservations"): the real percentage, refused runs, and why.
  const big = await call<{ status: string; error: { code: string } }>(request, secret, 'POST', `/v1/agents/${agent.id}/execute`, 200, {
    input: `Tell me everything about ${'this week and the next '.repeat(8)}`,
    wait: true,
  });
  expect(big.status).toBe('failed');
  expect(big.error.code).toBe('budget_exceeded');
  await reloadUntil(page, () => expect(onAgent.getByTestId('budget-status')).toHaveText('Exceeded', { timeout: 2_000 }));
  await expect(onAgent.getByTestId('budget-spent')).toHaveText(`${n(tokens)} tokens`);
  await expect(onAgent.getByTestId('budget-percent')).toHaveText(`${n(Math.floor((tokens / 30) * 100))}%`);
  await expect(onAgent).toHaveAttribute('data-status', 'exceeded');
  await expect(onAgent.getByTestId('budget-consequence')).toContainText('What is left cannot hold the next model call');
  await expect(onAgent.getByTestId('budget-consequence')).toContainText('Runs it counts are refused until');
  expect(await fillShare(onAgent)).toBeCloseTo(tokens / 30, 1);
  await expect(page.getByTestId('budgets-count')).toHaveText('2 budgets · 1 exceeded');
  const refused = await call<{ error: { code: string } }>(request, secret, 'POST', `/v1/agents/${agent.id}/execute`, 402, { input: 'One more?' });
  expect(refused.error.code).toBe('budget_exceeded');

  // A daily USD cap on the workspace, notify only: sandbox runs cost $0.
  const daily = await createBudget(page, { name: 'Daily spend cap', unit: 'usd', amount: '5', period: 'day', timezone: 'UTC', action: 'notify' });
  await expect(daily.getByTestId('budget-spent')).toHaveText('$0.00');
  await expect(daily.getByTestId('budget-limit')).toHaveText('$5.00');
  await expect(daily.getByTestId('budget-action')).toHaveText('Notify only');
  await shot(page, 'budgets-1280');

  // The Usage page marks the daily USD cap on the cost per day; hour buckets say where to see it.
  await openSection(page, 'usage');
  await expect(page).toHaveURL(/\/dashboard\/usage$/);
  const spend = page.getByTestId('chart-spend');
  // Usage is counted within seconds of a run's end: reload until the page has it.
  await reloadUntil(page, () => expect(spend.locator('.recharts-reference-line')).toHaveCount(1, { timeout: 3_000 }));
  // Its label is drawn in the chart's label layer, not inside the line's own group.
  await expect(spend.locator('.recharts-wrapper')).toContainText('Daily spend cap · $5.00/day');
  await expect(page.getByTestId('chart-spend-budgets')).toContainText('the workspace’s daily USD budget at the limit');
  await spend.scrollIntoViewIfNeeded();
  await shot(page, 'usage-budget-1280');
  await page.getByTestId('range-24h').click();
  await expect(spend.locator('.recharts-reference-line')).toHaveCount(0);
  await expect(page.getByTestId('chart-spend-budgets')).toContainText('drawn in the 7, 30 and 90 day ranges');

  // A phone: the cards fit, the bar and figures in view, the dialog too.
  await page.setViewportSize({ width: 390, height: 844 });
  await openSection(page, 'budgets');
  await expect(page).toHaveURL(/\/dashboard\/budgets$/);
  await expect(page.getByTestId('budget-card')).toHaveCount(3);
  await expectNoHorizontalScroll(page);
  for (const card of await page.getByTestId('budget-card').all()) {
    const [box, bar] = [await card.boundingBox(), await card.getByTestId('budget-bar').boundingBox()];
    expect(bar!.x).toBeGreaterThanOrEqual(box!.x);
    expect(bar!.x + bar!.width).toBeLessThanOrEqual(box!.x + box!.width + 0.5);
  }
  await shot(page, 'budgets-390');
  await onAgent.getByTestId('budget-edit').click();
  await expect(dialog).toBeVisible();
  await expectNoHorizontalScroll(page);
  await shot(page, 'budget-edit-390');

  // Edit: a higher limit judges the period again; the target, period and zone are shown, fixed.
  await expect(dialog.getByTestId('budget-fixed')).toContainText('Counts agent Budgeted helper · Weekly in Europe/Berlin');
  await expect(dialog.getByTestId('budget-amount')).toHaveValue('30');
  await dialog.getByTestId('budget-amount').fill('1000000');
  await dialog.getByTestId('budget-submit').click();
  await expect(dialog).toBeHidden();
  await expect(onAgent.getByTestId('budget-limit')).toHaveText('1,000,000 tokens');
  await expect(onAgent.getByTestId('budget-status')).toHaveText('Within limit');
  await expect(onAgent.getByTestId('budget-percent')).toHaveText('<1%');
  await expect(onAgent.getByTestId('budget-consequence')).toHaveCount(0);
  await call(request, secret, 'POST', `/v1/agents/${agent.id}/execute`, 200, { input: 'Runs again', wait: true });

  // Delete, confirmed: Cancel keeps it, Delete removes it.
  await page.setViewportSize({ width: 1280, height: 800 });
  await workspace.getByTestId('budget-delete').click();
  const confirm = page.getByTestId('delete-budget-dialog');
  await expect(confirm).toContainText('Delete “Workspace tokens”?');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId('budget-card')).toHaveCount(3);
  await workspace.getByTestId('budget-delete').click();
  await confirm.getByTestId('delete-budget-confirm').click();
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId('budget-card')).toHaveCount(2);
  await expect(workspace).toHaveCount(0);
  await call(request, secret, 'GET', `/v1/budgets/${workspaceId}`, 404);

  // Test mode is another world: none there.
  await page.getByTestId('env-test').click();
  await expect(page.getByTestId('budgets-empty')).toContainText('No test budgets yet');
  await page.getByTestId('env-live').click();
  await expect(page.getByTestId('budget-card')).toHaveCount(2);
});

test('a failed load of the budgets shows an error with a working retry', async ({ page }) => {
  await signUp(page, 'budgets-errors');
  await page.route('**/api/trpc/**', (route) => (route.request().url().includes('budgets.list') ? route.abort() : route.fallback()));
  await page.goto('/dashboard/budgets');
  await expect(page.getByTestId('budgets-loading')).toBeVisible();
  const failure = page.getByTestId('budgets-error');
  await expect(failure).toBeVisible({ timeout: 20_000 });
  await expect(failure).toContainText('Your budgets could not be loaded');
  await page.unroute('**/api/trpc/**');
  await failure.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('budgets-empty')).toBeVisible();
});
