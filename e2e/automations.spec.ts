import { expect, test, type Page } from '@playwright/test';
import { expectNoHorizontalScroll, shot, signUp } from './helpers';

// Automations in a real browser: an agent's schedules (the cron helper's next five runs in the
// chosen zone, run now and its run linked to the execution, pause, delete with a confirmation),
// and a turn queued in the playground while the previous one still runs.

async function createAgent(page: Page, name: string, modelId: 'echo' | 'slow'): Promise<void> {
  await page.goto('/dashboard/agents/new');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByTestId('agent-model-input').fill(modelId);
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/agt_[0-9A-Za-z]+$/);
}

test('create a schedule with the cron helper, run it now, see its run, pause it and delete it', async ({ page }) => {
  test.setTimeout(90_000);
  await signUp(page, 'schedules');
  await createAgent(page, 'Morning report', 'echo');
  const card = page.getByTestId('schedules-card');
  await expect(card.getByTestId('schedules-empty')).toContainText('No schedules');

  await card.getByTestId('create-schedule').click();
  const dialog = page.getByTestId('create-schedule-dialog');
  await expect(dialog).toBeVisible();
  // A cron the contract refuses: the helper says why before anything is sent.
  await dialog.getByTestId('schedule-cron').fill('0 0 9 * * *');
  await expect(dialog.getByText('seconds are not supported')).toBeVisible();
  await dialog.getByTestId('schedule-preset').selectOption({ label: 'Every day at 09:00' });
  await dialog.getByTestId('schedule-timezone').fill('europe/berlin');
  const runs = dialog.getByTestId('schedule-preview-run');
  await expect(dialog.getByTestId('schedule-preview')).toContainText('Europe/Berlin');
  await expect(runs).toHaveCount(5);
  for (const run of await runs.allInnerTexts()) expect(run).toMatch(/09:00 (CET|CEST|GMT\+[12])/);
  await dialog.getByTestId('schedule-input').fill('Write the morning report');
  await shot(page, 'schedule-dialog');
  await dialog.getByTestId('create-schedule-submit').click();
  await expect(dialog).toBeHidden();

  const item = card.getByTestId('schedule-item');
  await expect(item).toHaveCount(1);
  await expect(item.getByTestId('schedule-cron-text')).toHaveText('0 9 * * *');
  await expect(item).toContainText('Europe/Berlin');
  await expect(item.getByTestId('schedule-next')).toContainText('09:00');
  await expect(item).toContainText('No runs yet.');

  // Run now: the execution page opens; the run is then listed under the schedule, linked.
  await item.getByTestId('schedule-run-now').click();
  await expect(page).toHaveURL(/\/dashboard\/executions\/exe_/);
  const executionId = page.url().split('/').pop()!;
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('execution-page')).toContainText('Echo: Write the morning report');
  await page.goBack();
  const run = page.getByTestId('schedule-run');
  await expect(run).toHaveCount(1);
  await expect(run.getByRole('link')).toHaveAttribute('href', `/dashboard/executions/${executionId}`);
  await shot(page, 'agent-with-schedule');

  // Pause, then resume.
  await item.getByTestId('schedule-toggle').click();
  await expect(item.getByTestId('schedule-state')).toHaveText('Paused');
  await expect(item.getByTestId('schedule-next')).toContainText('No next run');
  await item.getByTestId('schedule-toggle').click();
  await expect(item.getByTestId('schedule-state')).toHaveText('Active');

  // The schedule's runs in the executions list.
  await page.getByRole('link', { name: 'All runs →' }).click();
  await expect(page.getByTestId('filter-schedule')).toBeVisible();
  await expect(page.getByTestId('execution-row')).toHaveCount(1);
  await page.goBack();

  // Delete, through the confirmation.
  await item.getByTestId('schedule-delete').click();
  const confirm = page.getByTestId('delete-schedule-dialog');
  await expect(confirm).toContainText('will not run again');
  await confirm.getByTestId('delete-schedule-confirm').click();
  await expect(card.getByTestId('schedules-empty')).toBeVisible();
});

test('queue a turn in the playground while the current one runs: it runs after it, in order', async ({ page }) => {
  test.setTimeout(90_000);
  await signUp(page, 'queue');
  await createAgent(page, 'Slow talker', 'slow');
  const words = Array.from({ length: 15 }, (_, i) => `w${i + 1}`).join(' ');
  await page.getByTestId('playground-input').fill(`first ${words}`);
  await page.getByTestId('playground-send').click();
  const turns = page.getByTestId('playground-turn');
  await expect(turns.first()).toHaveAttribute('data-status', 'running');
  // While it runs, Send becomes "Queue after current turn".
  await expect(page.getByTestId('playground-send')).toHaveCount(0);
  await page.getByTestId('playground-input').fill('second please');
  await page.getByTestId('playground-queue').click();
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(1)).toHaveAttribute('data-status', 'queued');
  await expect(turns.first()).toHaveAttribute('data-status', 'running');
  await shot(page, 'playground-queued-turn');
  await expect(turns.first()).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
  await expect(turns.nth(1)).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
  await expect(turns.nth(1).getByTestId('playground-reply')).toContainText('Echo: second please');
  await expect(page.getByTestId('playground-send')).toBeVisible();
});

test('the agent form edits an MCP server: its header is shown as set, never its value, and kept on save', async ({ page }) => {
  test.setTimeout(90_000);
  await signUp(page, 'mcp-form');
  await page.goto('/dashboard/agents/new');
  await page.getByLabel('Name', { exact: true }).fill('Docs helper');
  await page.getByTestId('agent-model-input').fill('echo');
  await page.getByTestId('add-mcp-tool').click();
  const tool = page.getByTestId('tool-editor').first();
  await tool.getByLabel('Name').fill('docs');
  await tool.getByLabel('Server URL').fill('http://127.0.0.1:9/mcp');
  await tool.getByLabel('Allowed tools (optional)').fill('search');
  await tool.getByTestId('add-mcp-header').click();
  await tool.getByLabel('Header 1 name').fill('Authorization');
  await tool.getByLabel('Header 1 value').fill('Bearer very-secret-token');
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/agt_[0-9A-Za-z]+$/);
  await expect(page.getByTestId('agent-mcp-tool')).toBeVisible();
  expect(await page.content()).not.toContain('very-secret-token');
  await shot(page, 'agent-with-mcp');

  // Edit: the header is "set" with an empty field; saving without touching it keeps it.
  await page.getByTestId('edit-agent').click();
  const set = page.getByTestId('mcp-header-set');
  await expect(set).toHaveValue('');
  await expect(set).toHaveAttribute('placeholder', /Set/);
  expect(await page.content()).not.toContain('very-secret-token');
  await shot(page, 'agent-form-mcp');
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/agt_[0-9A-Za-z]+$/);
  await expect(page.getByTestId('agent-mcp-tool')).toBeVisible();
});

test.describe('on a 390px phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('an agent page with a schedule and its dialog never scroll sideways', async ({ page }) => {
    await signUp(page, 'schedules-phone');
    await createAgent(page, 'Phone report', 'echo');
    await page.getByTestId('create-schedule').click();
    const dialog = page.getByTestId('create-schedule-dialog');
    await dialog.getByTestId('schedule-timezone').fill('America/New_York');
    await expect(dialog.getByTestId('schedule-preview')).toContainText('America/New_York');
    await expect(dialog.getByTestId('schedule-preview-run')).toHaveCount(5);
    await expect(dialog.getByTestId('schedule-preview-run').first()).toContainText(/09:00 (EST|EDT|GMT-[45])/);
    await dialog.getByTestId('schedule-input').fill('A phone-sized schedule');
    await expectNoHorizontalScroll(page);
    await shot(page, 'schedule-dialog-phone');
    await dialog.getByTestId('create-schedule-submit').click();
    await expect(page.getByTestId('schedule-item')).toHaveCount(1);
    await expectNoHorizontalScroll(page);
    await shot(page, 'agent-with-schedule-phone');
  });
});
