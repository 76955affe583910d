import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { apiWithKey, expectNoHorizontalScroll, type KeyApi } from './helpers';

// Replay from the dashboard (docs/traces.md, "Replay"): "Replay from here" on a model call of the
// trace, and "Replay" in the page's header, open a dialog (input, instructions, model, recorded or
// live tools); its submit starts the replay and opens its page, which says what it replays. The
// offline sandbox model calls the tools its input names, one a step: "please lookup_order 42 then
// refund it" calls `lookup_order` (an HTTP tool served here, which counts its requests), then
// `refund` (a closed port: a tool error), then answers. With recorded tools, no tool is called.

const PARAMETERS = { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] };
const INPUT = 'please lookup_order 42 then refund it';
/** A run in place on a busy machine: a few round trips. */
const soon = { timeout: 30_000 };
/** With E2E_SCREENSHOTS=<dir> (e.g. /tmp/shots), what the viewport shows, saved there. */
const SHOTS = process.env.E2E_SCREENSHOTS;

let tools: Server;
let base = '';
/** The requests the lookup tool was sent. */
let lookups = 0;

test.beforeAll(async () => {
  tools = createServer((req, res) => {
    lookups += 1;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ orderId: '42', status: 'shipped' }));
    });
  });
  await new Promise<void>((resolve) => tools.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(tools.address() as AddressInfo).port}`;
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => tools.close(() => resolve()));
});

/** Signs up, makes a key; the API calls with it. */
const withKey = (page: Page, request: APIRequestContext, label: string): Promise<KeyApi> => apiWithKey(page, request, label, 'Replay');

/** An agent with the two tools; a run of it, waited for (it calls the lookup tool once). */
async function toolRun(api: KeyApi): Promise<{ agentId: string; executionId: string }> {
  const agent = await api.post<{ id: string }>('/v1/agents', {
    name: 'Order desk',
    model: 'sandbox/echo',
    instructions: 'Look orders up before answering.',
    tools: [
      { type: 'http', name: 'lookup_order', description: 'Looks an order up.', url: `${base}/orders`, method: 'POST', parameters: PARAMETERS },
      { type: 'http', name: 'refund', description: 'Refunds an order.', url: 'http://127.0.0.1:9/refund', method: 'POST', parameters: PARAMETERS },
    ],
  });
  const before = lookups;
  const run = await api.post<{ id: string; status: string }>(`/v1/agents/${agent.id}/execute`, { input: INPUT, wait: true });
  expect(run.status).toBe('succeeded');
  expect(lookups - before).toBe(1);
  return { agentId: agent.id, executionId: run.id };
}

const spanRow = (page: Page, name: string, nth = 0) => page.locator(`[data-testid="trace-span"][data-span-name="${name}"]`).nth(nth);

/** Opens "Replay from here" on the trace's model call of this 0-based step. */
async function replayFromTrace(page: Page, step: number): Promise<Locator> {
  await spanRow(page, 'model_call', step).click();
  const details = page.getByTestId('span-details');
  await expect(details).toHaveAttribute('data-span-name', 'model_call');
  await details.getByTestId('replay-from-here').click();
  const dialog = page.getByTestId('replay-dialog');
  await expect(dialog).toBeVisible();
  return dialog;
}

/** The dialog fits the viewport: nothing in it, nor on the page, scrolls sideways. */
async function expectDialogFits(page: Page, dialog: Locator) {
  await expectNoHorizontalScroll(page);
  const width = page.viewportSize()!.width;
  const box = (await dialog.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  const overflows = await dialog.evaluate((d) => [d, ...d.querySelectorAll('*')].filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible').length);
  expect(overflows).toBe(0);
}

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

async function fullShot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

test('replay from the second model call with recorded tools: the replay’s page says what it replays, and no tool is called', async ({ page, request }) => {
  test.setTimeout(150_000);
  const api = await withKey(page, request, 'replay');
  const { executionId } = await toolRun(api);
  const before = lookups;

  await page.goto(`/dashboard/executions/${executionId}`);
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('execution-replay-of')).toHaveCount(0);
  await expect(page.getByTestId('replay-execution')).toBeVisible();

  // The second model call (step index 1, "Step 2" on the page).
  const dialog = await replayFromTrace(page, 1);
  await expect(dialog.getByRole('heading', { name: 'Replay from step 2' })).toBeVisible();
  await expect(dialog).toContainText('Step 1 is taken from this execution as recorded (no model or tool call, no cost); from step 2 on, a new execution runs live.');
  await expect(dialog.getByTestId('replay-input')).toHaveValue(INPUT);
  await expect(dialog.getByTestId('replay-instructions')).toHaveValue('');
  await expect(dialog.getByTestId('replay-model')).toHaveValue('');
  await expect(dialog.getByTestId('replay-model')).toHaveAttribute('placeholder', 'sandbox/echo');
  await expect(dialog.getByTestId('replay-tools-recorded')).toBeChecked();
  await expect(dialog.getByTestId('replay-live-warning')).toHaveCount(0);
  await expectDialogFits(page, dialog);
  await shot(page, 'replay-dialog-1280');

  // Live tools: said to have side effects; back to recorded.
  await dialog.getByTestId('replay-tools-live').check();
  await expect(dialog.getByTestId('replay-live-warning')).toContainText('Tools will be called for real');
  await expect(dialog.getByTestId('replay-submit')).toHaveText('Replay with live tools');
  await expect(dialog.getByTestId('replay-live-warning')).toBeInViewport();
  await shot(page, 'replay-dialog-live-1280');
  await dialog.getByTestId('replay-tools-recorded').check();
  await expect(dialog.getByTestId('replay-live-warning')).toHaveCount(0);

  await dialog.getByTestId('replay-submit').click();
  await expect(page).not.toHaveURL(new RegExp(`/dashboard/executions/${executionId}$`), soon);
  await expect(page).toHaveURL(/\/dashboard\/executions\/exe_[0-9A-Za-z]+$/);
  const replayId = page.url().split('/').pop()!;
  expect(replayId).not.toBe(executionId);
  await expect(page.getByTestId('execution-id')).toHaveText(replayId);
  const replayOf = page.getByTestId('execution-replay-of');
  await expect(replayOf).toContainText(`Replay of ${executionId}`);
  await expect(replayOf).toContainText('from step 2 (recorded tools)');
  await expect(replayOf).toHaveAttribute('data-from-step', '1');
  await expect(page.getByTestId('execution-facts-replay')).toContainText('From step 2, with recorded tools: no tool called');
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded', soon);
  // Its steps: the first one recorded; its trace: the live model calls only (the recorded step made none).
  await expect(page.getByTestId('execution-step')).toHaveCount(3);
  await expect(page.getByTestId('execution-step').nth(0).getByTestId('step-recorded')).toBeVisible();
  await expect(page.getByTestId('step-recorded')).toHaveCount(1);
  await expect(page.getByTestId('execution-steps')).toContainText('2 model calls · 1 step recorded');
  await expect(page.locator('[data-testid="trace-span"][data-span-name="model_call"]')).toHaveCount(2, soon);
  await expect(page.getByTestId('trace-recorded-note')).toContainText('Step 1 was taken from the replayed execution as recorded');

  const replay = await api.get<{ status: string; trigger: { type: string }; replayOf: unknown; steps: unknown[] }>(`/v1/executions/${replayId}`);
  expect(replay.status).toBe('succeeded');
  expect(replay.trigger.type).toBe('playground');
  expect(replay.replayOf).toEqual({ executionId, fromStep: 1, tools: 'recorded' });
  expect(replay.steps).toHaveLength(3);
  // The tool server was sent nothing new: only the original's one lookup.
  expect(lookups).toBe(before);
  await expectNoHorizontalScroll(page);
  await fullShot(page, 'replay-page-1280');

  // The link goes back to the original, which is not a replay.
  await replayOf.getByTestId('replay-of-id').click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/executions/${executionId}$`));
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('execution-replay-of')).toHaveCount(0);
});

test('replay from the page’s header (step 1): the recorded lookup is answered from the original, the tool server is not called', async ({ page, request }) => {
  test.setTimeout(150_000);
  const api = await withKey(page, request, 'replay-header');
  const { executionId } = await toolRun(api);
  const before = lookups;

  await page.goto(`/dashboard/executions/${executionId}`);
  await page.getByTestId('replay-execution').click();
  const dialog = page.getByTestId('replay-dialog');
  await expect(dialog.getByRole('heading', { name: 'Replay from step 1' })).toBeVisible();
  await expect(dialog).toContainText('runs every step live');
  await shot(page, 'replay-dialog-header-1280');
  // Cancel closes it; nothing is started.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);

  await page.getByTestId('replay-execution').click();
  await dialog.getByTestId('replay-submit').click();
  await expect(page).not.toHaveURL(new RegExp(`/dashboard/executions/${executionId}$`), soon);
  await expect(page.getByTestId('execution-replay-of')).toContainText('from step 1 (recorded tools)');
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded', soon);
  // The model called the lookup again, with the same arguments: answered from the recording.
  const replayId = page.url().split('/').pop()!;
  const replay = await api.get<{ replayOf: unknown; steps: { toolCalls: { name: string }[]; toolResults: unknown[] }[] }>(`/v1/executions/${replayId}`);
  expect(replay.replayOf).toEqual({ executionId, fromStep: 0, tools: 'recorded' });
  expect(replay.steps[0]!.toolCalls.map((c) => c.name)).toEqual(['lookup_order']);
  expect(JSON.stringify(replay.steps[0]!.toolResults)).toContain('shipped');
  expect(lookups).toBe(before);
});

test('an API error is shown in the dialog, the form kept', async ({ page, request }) => {
  test.setTimeout(120_000);
  const api = await withKey(page, request, 'replay-error');
  const { executionId } = await toolRun(api);

  await page.goto(`/dashboard/executions/${executionId}`);
  const dialog = await replayFromTrace(page, 1);
  // An empty input is refused before it is sent. (Checked first: once, checked after the API's
  // error, the dialog had been opened anew by then in a fresh-clone CI run, its input back to the
  // execution's, and the empty form went out as a valid replay.)
  await dialog.getByTestId('replay-input').fill('   ');
  await dialog.getByTestId('replay-submit').click();
  await expect(dialog.locator('#replay-input-error')).toHaveText('Enter the message the agent is sent.');
  await expect(dialog).toBeVisible();
  // A field the user went on to before the error's reveal (a frame later) keeps the focus: what
  // they type stays there. (Once, in a fresh-clone CI run, the model typed next went into the input.)
  await page.evaluate(() => {
    document.querySelector<HTMLButtonElement>('[data-testid="replay-submit"]')!.click();
    document.getElementById('replay-model')!.focus();
  });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await expect(dialog.getByTestId('replay-model')).toBeFocused();

  await dialog.getByTestId('replay-input').fill('please lookup_order 43');
  await dialog.getByTestId('replay-model').fill('nobody/x');
  await dialog.getByTestId('replay-submit').click();
  await expect(dialog.locator('#replay-model-error')).toContainText("'model' must be 'provider/model'", soon);
  await expect(dialog.getByTestId('replay-model')).toHaveAttribute('aria-invalid', 'true');
  await expect(dialog.getByTestId('replay-submit')).toBeEnabled();
  // The form is kept, and the page did not move.
  await expect(dialog.getByTestId('replay-input')).toHaveValue('please lookup_order 43');
  await expect(dialog.getByTestId('replay-model')).toHaveValue('nobody/x');
  await expect(page).toHaveURL(new RegExp(`/dashboard/executions/${executionId}$`));
  await shot(page, 'replay-dialog-error-1280');
});

test.describe('at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the dialog and the replay’s page fit a phone', async ({ page, request }) => {
    test.setTimeout(150_000);
    const api = await withKey(page, request, 'replay-phone');
    const { executionId } = await toolRun(api);

    await page.goto(`/dashboard/executions/${executionId}`);
    const dialog = await replayFromTrace(page, 1);
    await expectDialogFits(page, dialog);
    await shot(page, 'replay-dialog-390');
    await dialog.getByTestId('replay-tools-live').check();
    await expect(dialog.getByTestId('replay-live-warning')).toBeVisible();
    await expect(dialog.getByTestId('replay-live-warning')).toBeInViewport();
    await shot(page, 'replay-dialog-live-390');
    await dialog.getByTestId('replay-model').fill('nobody/x');
    await dialog.getByTestId('replay-submit').click();
    await expect(dialog.locator('#replay-model-error')).toBeVisible(soon);
    await expectDialogFits(page, dialog);
    await dialog.getByTestId('replay-model').evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await shot(page, 'replay-dialog-error-390');

    await dialog.getByTestId('replay-model').fill('');
    await dialog.getByTestId('replay-tools-recorded').check();
    await dialog.getByTestId('replay-submit').click();
    await expect(page.getByTestId('execution-replay-of')).toContainText('from step 2 (recorded tools)', soon);
    await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded', soon);
    await expectNoHorizontalScroll(page);
    await shot(page, 'replay-page-390');
    await fullShot(page, 'replay-page-390-full');
  });
});
