import { expect, test, type Page } from '@playwright/test';
import { ANSWER_SCHEMA, capitals, cardShot, changes, evalsApi } from './evals-helpers';
import { expectNoHorizontalScroll, openSection, shot } from './helpers';

// Experiments (docs/evals.md, "Experiments") in a real browser: one started from the dialog
// (exact match + contains) followed to its end, its summary and results; the agent changed (a
// new version) and a second run with the first as baseline — its comparison, regressions first —
// then both side by side; an execution of an experiment with its Scores card; an online scoring
// rule added, edited and deleted on the agent's page, its scores on a run; a running experiment
// cancelled (confirmed). The pages at 1024/1280 and 390 px: experiments-layout.spec.ts.

const LAPTOP = { width: 1280, height: 900 };
const resultRow = (page: Page, input: string) => page.getByTestId('result-row').filter({ has: page.getByTestId('result-input').getByText(input, { exact: true }) });
const summaryRow = (page: Page, scorer: string) => page.locator(`[data-testid="summary-row"][data-scorer="${scorer}"]`);
const score = (row: ReturnType<typeof resultRow>, scorer: string) => row.locator(`[data-testid="result-score"][data-scorer="${scorer}"]`);

/** Starts an experiment in the New experiment dialog (open): contains "Echo" added to the default exact match; `baseline` by name. */
async function startInDialog(page: Page, { baseline, concurrency }: { baseline?: string; concurrency?: string } = {}) {
  const dialog = page.getByTestId('new-experiment-dialog');
  await expect(dialog.getByTestId('exp-agent')).toBeVisible();
  await expect(dialog.getByTestId('scorer-draft')).toHaveCount(1);
  await dialog.getByTestId('exp-scorers-add-type').selectOption('contains');
  await dialog.getByTestId('exp-scorers-add').click();
  // A contains scorer needs its text: refused before anything is sent.
  await dialog.getByTestId('exp-submit').click();
  await expect(dialog.locator('#exp-scorers-1-value-error')).toHaveText('Enter the text the answer must contain.');
  await dialog.getByTestId('exp-scorers-1-value').fill('Echo');
  if (concurrency) await dialog.getByTestId('exp-concurrency').fill(concurrency);
  if (baseline) await dialog.getByTestId('exp-baseline').selectOption({ label: baseline });
  await dialog.getByTestId('exp-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/experiments\/exp_\w+$/);
  return page.url().split('/').pop()!;
}

test('an experiment from the dialog to its results; a new version against it as baseline, regressions first; compared side by side; its executions scored', async ({ page, request }) => {
  test.setTimeout(180_000);
  await page.setViewportSize(LAPTOP);
  const api = await evalsApi(page, request, 'experiments');
  const { agentId, datasetId } = await capitals(api);

  // Evals in the nav: the experiments, the Evals link current; an empty list says what experiments are.
  await openSection(page, 'evals');
  await expect(page).toHaveURL(/\/dashboard\/experiments$/);
  await expect(page.getByTestId('nav-evals')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('evals-tab-experiments')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('experiments-empty')).toContainText(
    'An experiment runs every item of a dataset through one version of an agent and scores the answers; compare two to see whether a change made it better',
  );
  // The Datasets tab: the Evals link stays current.
  await page.getByTestId('evals-tab-datasets').click();
  await expect(page).toHaveURL(/\/dashboard\/datasets$/);
  await expect(page.getByTestId('nav-evals')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('evals-tab-datasets')).toHaveAttribute('aria-current', 'page');
  await page.getByTestId('evals-tab-experiments').click();

  // The first experiment: followed live to its end.
  await page.getByTestId('create-experiment').click();
  const dialog = page.getByTestId('new-experiment-dialog');
  await expect(dialog.getByTestId('exp-version')).toHaveValue('label:production');
  await expect(dialog.getByTestId('exp-dataset')).toHaveValue(datasetId);
  const first = await startInDialog(page);
  const experimentPage = page.getByTestId('experiment-page');
  await expect(experimentPage).toHaveAttribute('data-status', 'succeeded', { timeout: 60_000 });
  await expect(page.getByTestId('experiment-progress-text').first()).toHaveText('3 / 3');
  await expect(page.getByTestId('experiment-name')).toHaveText('Capitals · v1');
  await expect(page.getByTestId('experiment-agent-link')).toHaveText('Capitals desk');
  await expect(page.getByTestId('experiment-dataset-link')).toHaveAttribute('href', `/dashboard/datasets/${datasetId}`);
  await expect(page.getByTestId('cancel-experiment')).toHaveCount(0);

  // Its summary: exact match passes Paris alone; every answer contains "Echo".
  await expect(summaryRow(page, 'exact_match').getByTestId('summary-mean')).toContainText('0.33');
  await expect(summaryRow(page, 'exact_match').getByTestId('summary-pass-rate')).toHaveText(/33%/);
  await expect(summaryRow(page, 'exact_match').getByTestId('summary-scored')).toHaveText(/3 items/);
  await expect(summaryRow(page, 'contains').getByTestId('summary-mean')).toContainText('1.00');
  await expect(summaryRow(page, 'contains').getByTestId('summary-pass-rate')).toHaveText(/100%/);

  // Its results, in the dataset's order, each score with its verdict; a row opens on the reasons.
  await expect(page.getByTestId('result-row')).toHaveCount(3);
  await expect(page.getByTestId('result-input')).toHaveText(['Paris', 'Rome', 'Berlin']);
  const paris = resultRow(page, 'Paris');
  await expect(paris.getByTestId('result-output')).toHaveText('Echo: Paris', { useInnerText: true });
  await expect(score(paris, 'exact_match').getByTestId('score-pass')).toHaveText('Pass');
  await expect(score(resultRow(page, 'Rome'), 'exact_match').getByTestId('score-pass')).toHaveText('Fail');
  await expect(score(resultRow(page, 'Berlin'), 'contains').getByTestId('score-pass')).toHaveText('Pass');
  await resultRow(page, 'Berlin').getByTestId('result-toggle').click();
  const details = page.getByTestId('result-details');
  await expect(details.locator('[data-testid="result-reason"][data-scorer="exact_match"]')).toBeVisible();
  await expect(details.getByTestId('result-details-execution')).toHaveCount(1);
  await expectNoHorizontalScroll(page);

  // A new version (answers as JSON), run against the first: chosen as the baseline in the dialog.
  await api.patch(`/v1/agents/${agentId}`, { outputSchema: ANSWER_SCHEMA, versionNote: 'Answers as JSON' });
  await page.goto('/dashboard/experiments');
  await expect(page.getByTestId('experiment-row')).toHaveCount(1);
  await expect(page.getByTestId('experiment-row').getByTestId('experiment-row-score')).toContainText('0.33');
  await page.getByTestId('create-experiment').click();
  await expect(dialog.getByTestId('exp-version').locator('option[value="label:production"]')).toHaveText('production (v2)');
  const second = await startInDialog(page, { baseline: 'Capitals · v1 (v1)' });
  await expect(experimentPage).toHaveAttribute('data-status', 'succeeded', { timeout: 60_000 });
  await expect(page.getByTestId('experiment-name')).toHaveText('Capitals · v2');
  await expect(page.getByTestId('experiment-baseline')).toContainText('Capitals · v1');

  // The comparison: the same means, so no difference either way.
  await expect(summaryRow(page, 'exact_match').getByTestId('summary-baseline-mean')).toHaveText(/0\.33/);
  await expect(summaryRow(page, 'exact_match').getByTestId('summary-diff')).toContainText('0.00');
  await expect(summaryRow(page, 'exact_match').getByTestId('summary-diff')).toHaveAttribute('data-verdict', 'unclear');
  await expect(summaryRow(page, 'contains').getByTestId('summary-diff')).toContainText('0.00');

  // Regressions first (on by default): Paris lost its exact match, Berlin is as it was, Rome gained one.
  await expect(page.getByTestId('results-change-counts')).toHaveText('1 regressed · 1 unchanged · 1 improved');
  await expect(page.getByTestId('regressions-first')).toBeChecked();
  await expect(page.getByTestId('result-input')).toHaveText(['Paris', 'Berlin', 'Rome']);
  expect(await changes(page)).toEqual(['regressed', 'unchanged', 'improved']);
  await expect(resultRow(page, 'Paris').getByTestId('change-badge')).toHaveText('↓ Regressed');
  await page.getByTestId('regressions-first').uncheck();
  await expect(page.getByTestId('result-input')).toHaveText(['Paris', 'Rome', 'Berlin']);
  await page.getByTestId('regressions-first').check();
  await expectNoHorizontalScroll(page);
  await shot(page, 'experiment-baseline-flow-1280');

  // Side by side: "Compare with…" offers its baseline first; regressions first there too.
  await page.getByTestId('compare-with').click();
  const compare = page.getByTestId('compare-with-dialog');
  await expect(compare.getByTestId('compare-with-select')).toHaveValue(first);
  await compare.getByTestId('compare-with-submit').click();
  await expect(page).toHaveURL(`/dashboard/experiments/compare?a=${first}&b=${second}`);
  await expect(page.getByTestId('compare-a-name')).toHaveText('Capitals · v1');
  await expect(page.getByTestId('compare-b-name')).toHaveText('Capitals · v2');
  await expect(page.getByTestId('compare-summary-row')).toHaveCount(2);
  await expect(page.getByTestId('compare-row')).toHaveCount(3);
  await expect(page.getByTestId('compare-counts')).toHaveText('3 items · 1 regressed in B');
  // The regressions first, then the rest in the dataset's order.
  expect(await changes(page, 'compare-row')).toEqual(['regressed', 'improved', 'unchanged']);
  await expect(page.getByTestId('compare-input').first()).toHaveText('Paris');
  const parisScores = page.getByTestId('compare-row').first().locator('[data-testid="compare-score"][data-scorer="exact_match"]');
  await expect(parisScores.getByTestId('compare-score-a')).toHaveAttribute('data-score', '1');
  await expect(parisScores.getByTestId('compare-score-b')).toHaveAttribute('data-score', '0');
  await expect(parisScores.getByTestId('compare-diff')).toHaveAttribute('data-verdict', 'worse');
  await page.getByTestId('compare-toggle').first().click();
  await expect(page.getByTestId('compare-details-b')).toContainText('{"answer":"Echo: Paris"}');
  await expectNoHorizontalScroll(page);
  await page.getByTestId('compare-swap').click();
  await expect(page).toHaveURL(`/dashboard/experiments/compare?a=${second}&b=${first}`);
  await expect(page.getByTestId('compare-row').first().getByTestId('compare-input')).toHaveText('Rome');

  // An execution of the experiment: its Scores card, and what started it (the experiment, linked).
  await page.goto(`/dashboard/experiments/${second}`);
  await resultRow(page, 'Paris').getByTestId('result-execution-link').click();
  await expect(page).toHaveURL(/\/dashboard\/executions\/exe_\w+$/);
  const scores = page.getByTestId('execution-scores');
  await expect(scores.locator('[data-testid="execution-score"][data-scorer="exact_match"]').getByTestId('score-pass')).toHaveText('Fail');
  await expect(scores.locator('[data-testid="execution-score"][data-scorer="contains"]').getByTestId('score-pass')).toHaveText('Pass');
  await expect(page.getByTestId('execution-trigger')).toContainText('Experiment');
  await expect(page.getByTestId('execution-experiment-id')).toHaveText(second);
  await shot(page, 'experiment-execution-1280');

  // In the executions list the Experiment badge leads to the experiment.
  await page.goto('/dashboard/executions');
  const badge = page.getByTestId('execution-trigger-experiment').first();
  await expect(badge).toHaveAttribute('href', /\/dashboard\/experiments\/exp_\w+$/);
  await badge.click();
  await expect(page).toHaveURL(/\/dashboard\/experiments\/exp_\w+$/);
  await expect(experimentPage).toBeVisible();
});

test('online scoring on the agent page: a rule added, its scores on a run, edited and deleted', async ({ page, request }) => {
  test.setTimeout(120_000);
  await page.setViewportSize(LAPTOP);
  const api = await evalsApi(page, request, 'online-scoring');
  const agent = await api.post<{ id: string }>('/v1/agents', { name: 'Scored desk', model: 'sandbox/echo' });

  await page.goto(`/dashboard/agents/${agent.id}`);
  const card = page.getByTestId('online-scoring-card');
  await expect(card.getByTestId('rules-empty')).toBeVisible();
  await card.getByTestId('add-rule').click();
  const dialog = page.getByTestId('rule-dialog');
  await expect(dialog.getByTestId('scorer-draft')).toHaveAttribute('data-type', 'contains');
  await dialog.getByTestId('rule-scorers-0-value').fill('echo');
  await dialog.getByTestId('rule-scorers-0-ignoreCase').check();
  await dialog.getByTestId('rule-scorers-add-type').selectOption('max_tool_calls');
  await dialog.getByTestId('rule-scorers-add').click();
  await dialog.getByTestId('rule-scorers-1-max').fill('0');
  await dialog.getByTestId('rule-sample').fill('150');
  await dialog.getByTestId('rule-submit').click();
  await expect(dialog.locator('#rule-sample-error')).toHaveText('A percentage from 0 to 100.');
  await dialog.getByTestId('rule-sample').fill('100');
  await dialog.getByTestId('rule-alert').check();
  await dialog.getByTestId('rule-alert-mean').fill('0.9');
  await dialog.getByTestId('rule-alert-window').fill('1');
  await dialog.getByTestId('rule-submit').click();
  await expect(dialog).toBeHidden();
  const rule = card.getByTestId('rule-item');
  await expect(rule.getByTestId('rule-scorer')).toHaveText(['contains', 'max_tool_calls']);
  await expect(rule.getByTestId('rule-sample-rate')).toHaveText('Scores 100% of runs');
  await expect(rule.getByTestId('rule-alert-line')).toContainText('Alert below 0.90 on contains, over the last 1 scored runs');
  await expect(rule.getByTestId('rule-moving-mean')).toHaveText('not yet');

  // A run of the agent is scored after it ends: the scores appear on its page by themselves.
  const run = await api.post<{ id: string; status: string }>(`/v1/agents/${agent.id}/execute`, { input: 'Where is order 1042?', wait: true });
  expect(run.status).toBe('succeeded');
  await page.goto(`/dashboard/executions/${run.id}`);
  const scores = page.getByTestId('execution-scores');
  await expect(scores.locator('[data-testid="execution-score"][data-scorer="contains"]').getByTestId('score-pass')).toHaveText('Pass', { timeout: 30_000 });
  await expect(scores.locator('[data-testid="execution-score"][data-scorer="max_tool_calls"]').getByTestId('score-pass')).toHaveText('Pass');
  await expect(scores.getByTestId('execution-score-reason').first()).not.toBeEmpty();
  await shot(page, 'execution-scores-1280');

  // Back on the agent: the moving mean; the rule edited (half the runs, no alert), then deleted.
  await page.goto(`/dashboard/agents/${agent.id}`);
  await expect(rule.getByTestId('rule-moving-mean')).toHaveText('1.00');
  await expect(rule.getByTestId('rule-alerting')).toHaveCount(0);
  await cardShot(card, 'agent-online-scoring-flow-1280');
  await rule.getByTestId('edit-rule').click();
  await expect(dialog.getByTestId('rule-scorers-0-value')).toHaveValue('echo');
  await expect(dialog.getByTestId('rule-sample')).toHaveValue('100');
  await dialog.getByTestId('rule-sample').fill('50');
  await dialog.getByTestId('rule-alert').uncheck();
  await dialog.getByTestId('rule-submit').click();
  await expect(dialog).toBeHidden();
  await expect(rule.getByTestId('rule-sample-rate')).toHaveText('Scores 50% of runs');
  await expect(rule.getByTestId('rule-alert-line')).toHaveCount(0);
  await rule.getByTestId('delete-rule').click();
  await page.getByTestId('delete-rule-confirm').click();
  await expect(card.getByTestId('rules-empty')).toBeVisible();
});

test('a running experiment is cancelled after a confirmation, and its page stops polling', async ({ page, request }) => {
  test.setTimeout(120_000);
  await page.setViewportSize(LAPTOP);
  const api = await evalsApi(page, request, 'experiments-cancel');
  await api.post('/v1/agents', { name: 'Slow desk', model: 'sandbox/slow' });
  const dataset = await api.post<{ id: string }>('/v1/datasets', { name: 'Long questions' });
  // sandbox/slow streams a word every 200 ms: each answer takes about half a minute.
  const long = (n: number) => `Question ${n}: ${Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ')}`;
  for (const n of [1, 2, 3]) await api.post(`/v1/datasets/${dataset.id}/items`, { input: long(n), expected: 'never' });

  // From the dataset's page: the dialog opens on it.
  await page.goto(`/dashboard/datasets/${dataset.id}`);
  await page.getByTestId('dataset-new-experiment').click();
  await expect(page.getByTestId('new-experiment-dialog').getByTestId('exp-dataset')).toHaveValue(dataset.id);
  await startInDialog(page, { concurrency: '1' });
  const experimentPage = page.getByTestId('experiment-page');
  await expect(experimentPage).toHaveAttribute('data-status', 'running', { timeout: 30_000 });
  await expect(page.getByTestId('experiment-summary-pending')).toBeVisible();
  await expect(page.getByTestId('experiment-progress-text').first()).toHaveText('0 / 3');

  // "Keep running" keeps it; then cancelled.
  await page.getByTestId('cancel-experiment').click();
  const confirm = page.getByTestId('cancel-experiment-dialog');
  await expect(confirm).toContainText('0 / 3 runs are done');
  await confirm.getByRole('button', { name: 'Keep running' }).click();
  await expect(confirm).toBeHidden();
  await expect(experimentPage).toHaveAttribute('data-status', 'running');
  await page.getByTestId('cancel-experiment').click();
  await confirm.getByTestId('cancel-experiment-confirm').click();
  await expect(confirm).toBeHidden();
  await expect(experimentPage).toHaveAttribute('data-status', 'cancelled');
  await expect(page.getByTestId('experiment-status')).toHaveText('Cancelled');
  await expect(page.getByTestId('cancel-experiment')).toHaveCount(0);
  await expect(page.getByTestId('experiment-completed')).not.toContainText('Not yet');

  // Ended: the page no longer reads the experiment every second.
  let reads = 0;
  page.on('request', (r) => {
    if (r.url().includes('experiments.get')) reads++;
  });
  await page.waitForTimeout(3_000);
  expect(reads).toBe(0);
  await shot(page, 'experiment-cancelled-1280');
});
