import { expect, test, type Locator, type Page } from '@playwright/test';
import { ANSWER_SCHEMA, capitals, cardShot, ended, evalsApi, SCORERS } from './evals-helpers';
import { expectNoHorizontalScroll, shot } from './helpers';

// The evals pages at a laptop's 1280 px and a phone's 390 px (experiments.spec.ts goes through
// them at 1280): the experiments list (cards on a phone), an experiment with a baseline (its
// results table scrolls in its own box, never the page), the compare page, the New experiment
// dialog and the agent's Online scoring card; the header's Evals link at 1024 and 1280 px.

const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

/** `inner` lies within the viewport's width. */
async function expectWithinWidth(page: Page, inner: Locator): Promise<void> {
  const box = await inner.boundingBox();
  expect(box).toBeTruthy();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()!.width + 0.5);
}

test('the experiments list, an experiment with a baseline, the compare page and the online scoring card fit 1280 and 390 px', async ({ page, request }) => {
  test.setTimeout(180_000);
  const api = await evalsApi(page, request, 'experiments-layout');
  const { agentId, datasetId } = await capitals(api, 'Capitals desk for the customer-facing travel assistant');
  const first = await api.post<{ id: string }>('/v1/experiments', { agentId, datasetId, scorers: SCORERS });
  expect((await ended(api, first.id)).status).toBe('succeeded');
  await api.patch(`/v1/agents/${agentId}`, { outputSchema: ANSWER_SCHEMA });
  const second = await api.post<{ id: string }>('/v1/experiments', {
    name: 'Capitals with answers as JSON for the structured-output rollout (candidate)',
    agentId,
    datasetId,
    scorers: [...SCORERS, { type: 'regex', pattern: '^Echo', name: 'starts_with_echo' }],
    trials: 2,
    baselineExperimentId: first.id,
  });
  expect((await ended(api, second.id)).status).toBe('succeeded');
  await api.post(`/v1/agents/${agentId}/eval-rules`, {
    scorers: [{ type: 'contains', value: 'Echo' }, { type: 'llm_judge', model: 'sandbox/echo', rubric: 'The answer names the city.', name: 'names_city' }],
    sampleRate: 0.25,
    alertBelow: { scorer: 'names_city', mean: 0.8, window: 50 },
  });

  for (const viewport of VIEWPORTS) {
    const w = viewport.width;
    await page.setViewportSize(viewport);

    await page.goto('/dashboard/experiments');
    await expect(page.getByTestId('experiment-row')).toHaveCount(2);
    await expectNoHorizontalScroll(page);
    for (const row of await page.getByTestId('experiment-row').all()) await expectWithinWidth(page, row.getByTestId('experiment-progress'));
    await shot(page, `experiments-list-${w}`);

    // The New experiment dialog, its scorer builder with one of each kind of field.
    await page.getByTestId('create-experiment').click();
    const dialog = page.getByTestId('new-experiment-dialog');
    await expect(dialog.getByTestId('exp-agent')).toBeVisible();
    await expectNoHorizontalScroll(page);
    await shot(page, `experiment-dialog-top-${w}`);
    for (const type of ['llm_judge', 'tool_trajectory']) {
      await dialog.getByTestId('exp-scorers-add-type').selectOption(type);
      await dialog.getByTestId('exp-scorers-add').click();
    }
    await expect(dialog.getByTestId('scorer-draft')).toHaveCount(3);
    await expectNoHorizontalScroll(page);
    await expect(dialog.getByTestId('exp-submit')).toBeInViewport({ ratio: 1 });
    await shot(page, `experiment-dialog-${w}`);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // An experiment with a baseline: the page never scrolls sideways; the results table may, in its box.
    await page.goto(`/dashboard/experiments/${second.id}`);
    await expect(page.getByTestId('experiment-page')).toHaveAttribute('data-status', 'succeeded');
    await expect(page.getByTestId('result-row')).toHaveCount(3);
    await expect(page.getByTestId('summary-row')).toHaveCount(3);
    await expectNoHorizontalScroll(page);
    await expectWithinWidth(page, page.getByTestId('results-scroll'));
    await expectWithinWidth(page, page.getByTestId('experiment-summary'));
    for (const id of ['compare-with', 'rerun-experiment']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
    await page.getByTestId('result-toggle').first().click();
    await expect(page.getByTestId('result-details')).toBeVisible();
    await expectNoHorizontalScroll(page);
    await shot(page, `experiment-${w}`);

    await page.goto(`/dashboard/experiments/compare?a=${first.id}&b=${second.id}`);
    await expect(page.getByTestId('compare-row')).toHaveCount(3);
    await expectNoHorizontalScroll(page);
    await expectWithinWidth(page, page.getByTestId('compare-scroll'));
    await shot(page, `compare-${w}`);

    await page.goto(`/dashboard/agents/${agentId}`);
    const card = page.getByTestId('online-scoring-card');
    await expect(card.getByTestId('rule-item')).toHaveCount(1);
    await expect(card.getByTestId('rule-sample-rate')).toHaveText('Scores 25% of runs');
    await card.scrollIntoViewIfNeeded();
    await expectNoHorizontalScroll(page);
    await expectWithinWidth(page, card);
    for (const id of ['edit-rule', 'delete-rule']) await expect(card.getByTestId(id)).toBeInViewport({ ratio: 1 });
    await cardShot(card, `agent-online-scoring-${w}`);
    await card.getByTestId('edit-rule').click();
    await expect(page.getByTestId('rule-dialog').getByTestId('rule-alert-scorer')).toHaveValue('names_city');
    await expectNoHorizontalScroll(page);
    await shot(page, `rule-dialog-${w}`);
    await page.keyboard.press('Escape');
  }

  // From 1024 px up the Evals link sits in the header's row with the others.
  for (const width of [1024, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto('/dashboard/datasets');
    await expect(page.getByTestId('nav-evals')).toHaveAttribute('aria-current', 'page');
    for (const id of ['nav-evals', 'nav-approvals', 'nav-events', 'nav-docs']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
    await expectNoHorizontalScroll(page);
  }
});
