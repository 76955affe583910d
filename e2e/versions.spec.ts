import { expect, test, type Locator, type Page } from '@playwright/test';
import { expectNoHorizontalScroll, signUp } from './helpers';

// Agent versions and labels on the dashboard (docs/versions.md): the editor says a change of
// behaviour makes a new version and sends its note; the agent page lists the versions, compares
// two (the instructions as a line diff, the rest field by field), moves a label to a version,
// rolls production back through a confirmation, and an execution's page names the version it
// ran. At 390 px nothing scrolls sideways. With E2E_SCREENSHOTS=<dir>, the section, the diff and
// the confirmation are saved there at both widths.

const BEFORE = ['Be kind to the customer.', 'Answer at length, with every detail you know.', 'Sign off politely.'].join('\n');
const AFTER = ['Be kind to the customer.', 'Answer briefly.', 'Sign off politely.'].join('\n');

/** With E2E_SCREENSHOTS, the element alone (or the viewport: a dialog) as versions-<name>.png. */
async function snap(target: Page | Locator, name: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (dir) await target.screenshot({ path: `${dir}/versions-${name}.png` });
}

async function createAgent(page: Page): Promise<string> {
  await page.goto('/dashboard/agents/new');
  await page.getByLabel('Name', { exact: true }).fill('Versioned helper');
  await page.getByTestId('agent-model-input').fill('echo');
  await page.getByLabel('Instructions (optional)').fill(BEFORE);
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/agt_[0-9A-Za-z]+$/);
  return page.url();
}

test('a version note, the versions, a diff, a label moved, production rolled back, the version a run ran; at 390 px too', async ({ page }) => {
  test.setTimeout(120_000);
  const { email } = await signUp(page, 'versions');
  const agentUrl = await createAgent(page);
  const card = page.getByTestId('versions-card');
  const items = card.getByTestId('version-item');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toHaveAttribute('data-version', '1');
  await expect(card.getByTestId('label-row')).toHaveCount(1);
  await expect(card.getByTestId('label-row')).toHaveAttribute('data-version', '1');
  // One version: nothing to roll back to, nothing to compare.
  await expect(card.getByTestId('rollback')).toHaveCount(0);
  await expect(card.getByTestId('compare-versions')).toHaveCount(0);

  // The editor: a rename alone makes no version; new instructions make version 2, with a note.
  await page.getByTestId('edit-agent').click();
  const next = page.getByTestId('agent-next-version');
  await expect(next).toHaveAttribute('data-changed', 'false');
  await expect(next).toContainText('This is version 1');
  await page.getByLabel('Name', { exact: true }).fill('Versioned helper (renamed)');
  await expect(next).toHaveAttribute('data-changed', 'false');
  await expect(page.getByTestId('agent-save-version')).toHaveText('No change of behaviour: no new version');
  await page.getByLabel('Instructions (optional)').fill(AFTER);
  await expect(next).toContainText('Saving makes version 2.');
  await expect(page.getByTestId('agent-save-version')).toHaveText('Saving makes version 2');
  await page.getByLabel('Version note (optional)').fill('Shorter answers');
  await snap(page.locator('form section', { has: next }), 'editor-1280');
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(agentUrl);

  // Versions 2 and 1, newest first: when, who, the note, the digest, the labels.
  await expect(items).toHaveCount(2);
  const [v2, v1] = [items.nth(0), items.nth(1)];
  await expect(v2).toHaveAttribute('data-version', '2');
  await expect(v2.getByTestId('version-note')).toHaveText('Shorter answers');
  await expect(v2.getByTestId('version-author')).toHaveText(`by ${email}`);
  await expect(v2.getByTestId('version-digest')).toHaveText(/^[0-9a-f]{12}$/);
  await expect(v2.getByTestId('label-badge')).toHaveText(['production']);
  await expect(v1).toHaveAttribute('data-version', '1');
  await expect(v1).toContainText('No note');
  await expect(v1.getByTestId('label-badge')).toHaveCount(0);
  await expect(page.getByTestId('agent-version')).toContainText('v2');

  // The diff of 1 and 2: the instruction line that changed; the settings unchanged.
  await v2.getByTestId('version-compare').click();
  const diff = page.getByTestId('version-diff');
  await expect(diff.getByTestId('diff-from')).toHaveValue('1');
  await expect(diff.getByTestId('diff-to')).toHaveValue('2');
  await expect(diff.getByTestId('version-diff-summary')).toHaveText('The instructions changed from v1 to v2.');
  await expect(diff.locator('[data-testid="diff-line"][data-type="removed"]')).toContainText(['Removed: Answer at length, with every detail you know.']);
  await expect(diff.locator('[data-testid="diff-line"][data-type="added"]')).toContainText(['Added: Answer briefly.']);
  await expect(diff.locator('[data-testid="diff-field"][data-changed="true"]')).toHaveCount(0);
  await expect(diff.locator('[data-field="model"]')).toContainText('sandbox/echo');
  await expect(diff.getByTestId('diff-tools')).toContainText('No tools in either version.');
  await snap(card, 'diff-1280');
  // The same version on both sides; then back.
  await diff.getByTestId('diff-from').selectOption('2');
  await expect(diff.getByTestId('version-diff-same')).toBeVisible();
  await diff.getByTestId('diff-from').selectOption('1');
  await expect(diff.getByTestId('version-diff-summary')).toBeVisible();
  await diff.getByTestId('version-diff-close').click();
  await expect(diff).toHaveCount(0);

  // "Move label here" on v1: a new label, named as the server wants it.
  await v1.getByTestId('version-move-label').click();
  const move = page.getByTestId('move-label-dialog');
  await expect(move.getByTestId('move-label-select')).toHaveValue(/new/);
  await move.getByTestId('move-label-name').fill('Staging');
  await move.getByTestId('move-label-confirm').click();
  await expect(move.getByText('Use 1–40 lower-case letters')).toBeVisible();
  await expect(move).toBeVisible();
  await move.getByTestId('move-label-name').fill('staging');
  await expect(move.getByTestId('production-warning')).toHaveCount(0);
  await move.getByTestId('move-label-confirm').click();
  await expect(move).toBeHidden();
  await expect(card.locator('[data-testid="label-row"][data-label="staging"]')).toHaveAttribute('data-version', '1');
  await expect(v1.getByTestId('label-badge')).toHaveText(['staging']);
  await expect(card.getByTestId('versions-notice')).toContainText('staging points at v1 now.');

  // Choosing production in the same dialog says what it means before anything moves; cancelled.
  await v1.getByTestId('version-move-label').click();
  await move.getByTestId('move-label-select').selectOption('production');
  await expect(move.getByTestId('production-warning')).toContainText('Executions from now on run v1.');
  await expect(move.getByTestId('production-warning')).toContainText('in every process');
  await expect(move.getByTestId('move-label-confirm')).toHaveText('Move production to v1');
  await snap(page, 'move-production-1280');
  await move.getByRole('button', { name: 'Cancel' }).click();
  await expect(move).toBeHidden();
  await expect(card.locator('[data-testid="label-row"][data-label="production"]')).toHaveAttribute('data-version', '2');

  // Roll back: production to the version it ran before (v1), through the confirmation.
  await card.getByTestId('rollback').click();
  const rollback = page.getByTestId('rollback-dialog');
  await expect(rollback.getByTestId('rollback-summary')).toContainText('Production runs v2 now. Rolling back moves it to v1');
  await expect(rollback.getByTestId('production-warning')).toContainText('Executions from now on run v1.');
  await expect(rollback.getByTestId('rollback-confirm')).toHaveText('Roll back to v1');
  await snap(page, 'rollback-1280');
  await rollback.getByTestId('rollback-confirm').click();
  await expect(rollback).toBeHidden();
  const production = card.locator('[data-testid="label-row"][data-label="production"]');
  await expect(production).toHaveAttribute('data-version', '1');
  await expect(production.getByTestId('production-state')).toContainText('pinned');
  await expect(card.getByTestId('follow-latest')).toBeVisible();
  await expect(v1.getByTestId('label-badge')).toHaveText(['production', 'staging']);
  await expect(v2.getByTestId('label-badge')).toHaveCount(0);
  await expect(page.getByTestId('agent-production-version')).toHaveText('Production runs v1');
  await snap(card, 'section-1280');

  // A run started now runs v1: its page says so, and links to that version on the agent's page.
  await page.getByTestId('playground-input').fill('Which version answers?');
  await page.getByTestId('playground-send').click();
  await expect(page.getByTestId('playground-reply').last()).toContainText('Echo: Which version answers?', { timeout: 15_000 });
  await page.getByTestId('playground-execution-link').last().click();
  await expect(page).toHaveURL(/\/dashboard\/executions\/exe_/);
  await expect(page.getByTestId('execution-version')).toHaveText('v1');
  await page.getByTestId('execution-version').click();
  await expect(page).toHaveURL(/#version-1$/);
  await expect(page.locator('[data-testid="version-item"][data-version="1"]')).toHaveAttribute('data-highlighted', 'true');

  // A version's runs: the executions list, filtered to it.
  await page.locator('[data-testid="version-item"][data-version="1"]').getByTestId('version-runs').click();
  await expect(page).toHaveURL(/\/dashboard\/executions\?agentId=agt_\w+&agentVersion=1$/);
  await expect(page.getByTestId('filter-version')).toContainText('Runs of version 1');
  await expect(page.getByTestId('execution-row')).toHaveCount(1);
  await page.goto(`${agentUrl}#versions`);
  await page.locator('[data-testid="version-item"][data-version="2"]').getByTestId('version-runs').click();
  await expect(page.getByTestId('executions-empty')).toContainText('No executions match these filters');

  // A phone: the section, the diff and the confirmation fit 390 px.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(agentUrl);
  await expect(items).toHaveCount(2);
  await expectNoHorizontalScroll(page);
  await card.scrollIntoViewIfNeeded();
  await snap(card, 'section-390');
  await card.getByTestId('compare-versions').click();
  await expect(diff.locator('[data-testid="diff-line"][data-type="added"]')).toContainText(['Added: Answer briefly.']);
  await expectNoHorizontalScroll(page);
  await snap(diff, 'diff-390');
  await card.getByTestId('follow-latest').click();
  const follow = page.getByTestId('follow-latest-dialog');
  await expect(follow.getByTestId('production-warning')).toContainText('Executions from now on run v2.');
  await expectNoHorizontalScroll(page);
  await snap(page, 'follow-latest-390');
  await follow.getByRole('button', { name: 'Cancel' }).click();
  await card.getByTestId('rollback').click();
  // After the roll back, "before" is v2 (an undo), the version production ran before its last change.
  await expect(rollback.getByTestId('rollback-summary')).toContainText('Rolling back moves it to v2');
  await expectNoHorizontalScroll(page);
  await snap(page, 'rollback-390');
  await rollback.getByRole('button', { name: 'Cancel' }).click();
  await expect(rollback).toBeHidden();

  // The editor on a phone: what saving makes, and the note.
  await page.getByTestId('edit-agent').click();
  await page.getByLabel('Instructions (optional)').fill(`${AFTER}\nOne more line.`);
  await expect(next).toContainText('Saving makes version 3.');
  await expect(next).toContainText('Production stays on v1');
  await page.getByLabel('Max steps').fill('8');
  await page.getByLabel('Temperature').fill('0.3');
  await page.getByTestId('add-tool').click();
  const tool = page.getByTestId('tool-editor');
  await tool.getByLabel('Name').fill('lookup_order');
  await tool.getByLabel('Description').fill('Looks an order up by its number.');
  await tool.getByLabel('URL').fill('https://93.184.215.14/orders/lookup');
  await expectNoHorizontalScroll(page);
  await snap(page.locator('form section', { has: next }), 'editor-390');
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(agentUrl);

  // v2 and v3 compared: the settings that changed, highlighted; the tool added, as JSON.
  await expect(items).toHaveCount(3);
  await card.getByTestId('compare-versions').click();
  await expect(diff.getByTestId('diff-from')).toHaveValue('2');
  await expect(diff.getByTestId('version-diff-summary')).toHaveText('The instructions, 2 settings and 1 tool changed from v2 to v3.');
  await expect(diff.locator('[data-testid="diff-field"][data-changed="true"]')).toHaveCount(2);
  await expect(diff.locator('[data-field="maxSteps"]')).toHaveAttribute('data-changed', 'true');
  await expect(diff.locator('[data-field="temperature"]')).toContainText('0.3');
  await expect(diff.getByTestId('diff-tool')).toHaveAttribute('data-status', 'added');
  await expect(diff.getByTestId('tool-diff')).toContainText('"url": "https://93.184.215.14/orders/lookup"');
  await expectNoHorizontalScroll(page);
  await snap(diff, 'diff-fields-390');
  await page.setViewportSize({ width: 1280, height: 900 });
  await snap(diff, 'diff-fields-1280');
});
