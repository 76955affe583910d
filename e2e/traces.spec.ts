import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiWithKey, expectNoHorizontalScroll, shot, type KeyApi } from './helpers';

// Run traces (docs/traces.md) on the execution page: the waterfall of a run's spans, a span's
// details, the content an agent records with "Record content in traces", live while the run goes
// on, and a phone's width. The offline sandbox model calls the tools its input names, one a step:
// "please lookup_order 42 then refund it" calls `lookup_order` (an HTTP tool served here, which
// answers after a short wait), then `refund` (a closed port: a tool error), then answers.

const PARAMETERS = { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] };
const INPUT = 'please lookup_order 42 then refund it';
/** The page reads the trace every second while the run goes on: a round trip or two on a busy machine. */
const soon = { timeout: 30_000 };

let tools: Server;
let base = '';

test.beforeAll(async () => {
  // `/orders` answers after 300 ms (a bar wide enough to see); `/slow` after 8 s (a run to watch live).
  tools = createServer((req, res) => {
    const wait = req.url?.startsWith('/slow') ? 8_000 : 300;
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ orderId: '42', status: 'shipped' }));
      }, wait),
    );
  });
  await new Promise<void>((resolve) => tools.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(tools.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => tools.close(() => resolve()));
});

/** Signs up, makes a key; the API calls with it. */
const withKey = (page: Page, request: APIRequestContext, label: string): Promise<KeyApi> => apiWithKey(page, request, label, 'Traces');

const toolsAt = (orders: string) => [
  { type: 'http', name: 'lookup_order', description: 'Looks an order up.', url: `${base}${orders}`, method: 'POST', parameters: PARAMETERS },
  { type: 'http', name: 'refund', description: 'Refunds an order.', url: 'http://127.0.0.1:9/refund', method: 'POST', parameters: PARAMETERS },
];

/** An agent with the two tools; a run of it, waited for. */
async function tracedRun(api: KeyApi, traceContent = false): Promise<{ agentId: string; executionId: string }> {
  const agent = await api.post<{ id: string }>('/v1/agents', { name: 'Order desk', model: 'sandbox/echo', instructions: 'Look orders up before answering.', tools: toolsAt('/orders'), traceContent });
  const run = await api.post<{ id: string; status: string }>(`/v1/agents/${agent.id}/execute`, { input: INPUT, wait: true });
  expect(run.status).toBe('succeeded');
  return { agentId: agent.id, executionId: run.id };
}

/** With E2E_SCREENSHOTS, the trace's section alone as well (the page's own shot is tall). */
async function shots(page: Page, name: string) {
  await shot(page, name);
  const dir = process.env.E2E_SCREENSHOTS;
  if (dir) await page.getByTestId('execution-trace').screenshot({ path: `${dir}/${name}-section.png` });
}

const spansOf = (page: Page) => page.getByTestId('execution-trace').getByTestId('trace-span');
const spanRow = (page: Page, name: string, nth = 0) => page.locator(`[data-testid="trace-span"][data-span-name="${name}"]`).nth(nth);

/** Every bar lies on its track (the axis), at least 2 px wide. */
async function expectBarsOnTheAxis(page: Page) {
  const boxes = await page.getByTestId('trace-bar').evaluateAll((bars) =>
    bars.map((bar) => {
      const b = bar.getBoundingClientRect();
      const t = bar.parentElement!.getBoundingClientRect();
      return { left: b.left - t.left, right: t.right - b.right, width: b.width };
    }),
  );
  expect(boxes.length).toBeGreaterThan(0);
  for (const box of boxes) {
    expect(box.left).toBeGreaterThanOrEqual(-0.5);
    expect(box.right).toBeGreaterThanOrEqual(-0.5);
    expect(box.width).toBeGreaterThanOrEqual(1.5);
  }
}

test('a run with tool calls: the waterfall, a model call’s tokens and cost, a tool call’s arguments and result', async ({ page, request }) => {
  test.setTimeout(120_000);
  const api = await withKey(page, request, 'traces');
  const { executionId } = await tracedRun(api);

  await page.goto(`/dashboard/executions/${executionId}`);
  const trace = page.getByTestId('execution-trace');
  await expect(trace.getByTestId('trace-waterfall')).toBeVisible();
  // The root, its queue wait, three model calls (lookup, refund, the answer) and two tool calls under them.
  await expect(spansOf(page)).toHaveCount(7);
  await expect(trace.getByTestId('trace-summary')).toContainText('7 spans');
  const names = await spansOf(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-span-name')));
  expect(names).toEqual(['execution', 'queue_wait', 'model_call', 'tool_call', 'model_call', 'tool_call', 'model_call']);
  await expect(spanRow(page, 'execution')).toContainText('Execution');
  await expect(spanRow(page, 'model_call')).toContainText('Step 1');
  await expect(spanRow(page, 'model_call')).toContainText('sandbox/echo');
  await expect(spanRow(page, 'model_call')).toContainText(/tokens · \$0\.00/);
  await expect(spanRow(page, 'tool_call').getByTestId('trace-span-name')).toHaveText('lookup_order');
  await expect(spanRow(page, 'tool_call')).toContainText('HTTP 200');
  // The refund's closed port: an error, said so on its row.
  await expect(spanRow(page, 'tool_call', 1).getByTestId('trace-span-name')).toHaveText('refund');
  await expect(spanRow(page, 'tool_call', 1)).toContainText('Error');
  // A tool call sits under its model call, the model calls under the root.
  const indent = (row: ReturnType<typeof spanRow>) => row.getByTestId('trace-span-label').evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft));
  expect(await indent(spanRow(page, 'tool_call'))).toBeGreaterThan(await indent(spanRow(page, 'model_call')));
  expect(await indent(spanRow(page, 'model_call'))).toBeGreaterThan(await indent(spanRow(page, 'execution')));
  // One span is the slowest (the sandbox costs nothing: no call is the dearest).
  await expect(trace.getByTestId('trace-slowest')).toHaveCount(1);
  await expect(trace.getByTestId('trace-dearest')).toHaveCount(0);
  await expectBarsOnTheAxis(page);
  await expect(page.getByTestId('trace-hint')).toBeVisible();

  // A model call: tokens, cost, first token, finish reason, attributes; its messages are not recorded.
  await spanRow(page, 'model_call').click();
  await expect(spanRow(page, 'model_call')).toHaveAttribute('aria-pressed', 'true');
  const details = page.getByTestId('span-details');
  await expect(details).toHaveAttribute('data-span-name', 'model_call');
  await expect(details.getByTestId('span-status')).toHaveText('OK');
  await expect(details.getByTestId('span-tokens')).toContainText(/\d+ in · \d+ out/);
  await expect(details.getByTestId('span-cost')).toContainText('$0.00');
  await expect(details.getByTestId('span-finish-reason')).toContainText('Tool calls');
  await expect(details.getByTestId('span-first-token')).toBeVisible();
  await expect(details.getByTestId('span-attributes')).toContainText('gen_ai.operation.name');
  await expect(details.getByTestId('span-attributes')).toContainText('chat');
  await expect(details.getByTestId('span-no-content')).toContainText('Record content in traces');
  // A final run, seen by its owner: it can be replayed from here (e2e/replay.spec.ts).
  await expect(details.getByTestId('replay-from-here')).toBeVisible();

  // A tool call: its arguments and result (from the run's steps: no content recorded).
  await spanRow(page, 'tool_call').click();
  await expect(details).toHaveAttribute('data-span-name', 'tool_call');
  await expect(details.getByTestId('span-arguments')).toContainText('"orderId": "42');
  await expect(details.getByTestId('span-result')).toContainText('shipped');
  await expect(details.getByTestId('span-attributes')).toContainText('gen_ai.tool.name');
  await expect(details.getByTestId('span-attributes')).toContainText('http.response.status_code');

  // The failed one: its error's code and message.
  await spanRow(page, 'tool_call', 1).click();
  await expect(details.getByTestId('span-status')).toHaveText('Error');
  await expect(details.getByTestId('span-error')).toContainText('tool_error');

  // The keyboard: rows are buttons; the arrows move between them, Enter selects.
  await spanRow(page, 'execution').focus();
  await page.keyboard.press('ArrowDown');
  await expect(spanRow(page, 'queue_wait')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(details).toHaveAttribute('data-span-name', 'queue_wait');
  await page.keyboard.press('End');
  await expect(spansOf(page).last()).toBeFocused();
  await page.keyboard.press('Space');
  await expect(details).toHaveAttribute('data-span-name', 'model_call');
  await expect(details.getByTestId('span-finish-reason')).toContainText('Answered');
  await details.getByTestId('span-details-close').click();
  await expect(details).toHaveCount(0);
  await expect(spansOf(page).last()).toBeFocused();

  await spanRow(page, 'model_call').click();
  await expectNoHorizontalScroll(page);
  await shots(page, 'trace-1280');
});

test('an agent that records content: switched on in its form, the messages and tool arguments on the trace', async ({ page, request }) => {
  test.setTimeout(120_000);
  const api = await withKey(page, request, 'trace-content');
  const agent = await api.post<{ id: string }>('/v1/agents', { name: 'Order desk', model: 'sandbox/echo', instructions: 'Look orders up before answering.', tools: toolsAt('/orders') });

  // Off by default; switched on in the form, saved through the agents' update.
  await page.goto(`/dashboard/agents/${agent.id}`);
  await expect(page.getByTestId('agent-details').getByTestId('agent-trace-content')).toHaveAttribute('data-on', 'false');
  await page.getByTestId('edit-agent').click();
  const toggle = page.getByRole('switch', { name: 'Record content in traces' });
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  if (process.env.E2E_SCREENSHOTS) await toggle.locator('xpath=ancestor::section[1]').screenshot({ path: `${process.env.E2E_SCREENSHOTS}/agent-form-traces.png` });
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/agents/${agent.id}$`));
  await expect(page.getByTestId('agent-details').getByTestId('agent-trace-content')).toHaveAttribute('data-on', 'true');
  expect((await api.get<{ traceContent: boolean }>(`/v1/agents/${agent.id}`)).traceContent).toBe(true);
  if (process.env.E2E_SCREENSHOTS) await page.getByTestId('agent-details').screenshot({ path: `${process.env.E2E_SCREENSHOTS}/agent-details-traces.png` });
  await page.getByTestId('edit-agent').click();
  await expect(page.getByRole('switch', { name: 'Record content in traces' })).toBeChecked();

  const run = await api.post<{ id: string; status: string }>(`/v1/agents/${agent.id}/execute`, { input: INPUT, wait: true });
  expect(run.status).toBe('succeeded');
  await page.goto(`/dashboard/executions/${run.id}`);
  await expect(spansOf(page)).toHaveCount(7);

  // The first model call: the instructions, the messages it was sent (the input), its answer (a tool call).
  await spanRow(page, 'model_call').click();
  const details = page.getByTestId('span-details');
  await expect(details.getByTestId('span-instructions')).toContainText('Look orders up before answering.');
  const sent = details.getByTestId('span-input-messages');
  await expect(sent.getByTestId('span-message').first()).toHaveAttribute('data-role', 'user');
  await expect(sent).toContainText(INPUT);
  await expect(details.getByTestId('span-output-messages')).toContainText('lookup_order');
  await expect(details.getByTestId('span-no-content')).toHaveCount(0);
  await expect(details.getByTestId('span-attributes')).not.toContainText('gen_ai.input.messages');

  // The last: it was sent the tool's result, and answered in words.
  await spanRow(page, 'model_call', 2).click();
  await expect(details.getByTestId('span-input-messages')).toContainText('shipped');
  await expect(details.getByTestId('span-output-messages')).toContainText('The refund tool returned');

  // A tool call: its arguments and result as recorded on the span.
  await spanRow(page, 'tool_call').click();
  await expect(details.getByTestId('span-arguments')).toContainText('"orderId"');
  await expect(details.getByTestId('span-result')).toContainText('shipped');
  await shots(page, 'trace-content-1280');
});

test('live: the spans appear while the run goes on, the root when it ends', async ({ page, request }) => {
  test.setTimeout(120_000);
  const api = await withKey(page, request, 'trace-live');
  const agent = await api.post<{ id: string }>('/v1/agents', { name: 'Slow desk', model: 'sandbox/echo', tools: toolsAt('/slow') });
  const run = await api.post<{ id: string }>(`/v1/agents/${agent.id}/execute`, { input: 'please lookup_order 7' });

  await page.goto(`/dashboard/executions/${run.id}`);
  // The first model call ended; its tool takes 8 s: the run is still going, the root not written yet.
  await expect(spanRow(page, 'model_call')).toBeVisible(soon);
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('trace-pending-root')).toBeVisible();
  await expect(spanRow(page, 'execution')).toHaveCount(0);
  await shots(page, 'trace-live-1280');
  // Not final yet: nothing to replay.
  await spanRow(page, 'model_call').click();
  await expect(page.getByTestId('span-details')).toHaveAttribute('data-span-name', 'model_call');
  await expect(page.getByTestId('replay-from-here')).toHaveCount(0);
  await expect(page.getByTestId('replay-execution')).toHaveCount(0);

  // The end: the root, the queue wait, the tool call and the answer.
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded', soon);
  await expect(spansOf(page)).toHaveCount(5, soon);
  await expect(spanRow(page, 'execution')).toBeVisible();
  await expect(page.getByTestId('trace-pending-root')).toHaveCount(0);
  await expectBarsOnTheAxis(page);
});

test.describe('at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the waterfall and a span’s details fit a phone: nothing scrolls sideways, the details below the list', async ({ page, request }) => {
    test.setTimeout(120_000);
    const api = await withKey(page, request, 'trace-phone');
    const { executionId } = await tracedRun(api, true);
    await page.goto(`/dashboard/executions/${executionId}`);
    await expect(spansOf(page)).toHaveCount(7);
    await expectBarsOnTheAxis(page);
    await expectNoHorizontalScroll(page);

    await spanRow(page, 'model_call').click();
    const details = page.getByTestId('span-details');
    await expect(details.getByTestId('span-input-messages')).toBeVisible();
    const list = await spansOf(page).last().boundingBox();
    const below = await details.boundingBox();
    expect(below!.y).toBeGreaterThanOrEqual(list!.y + list!.height);
    await expectNoHorizontalScroll(page);
    await shots(page, 'trace-390');

    await spanRow(page, 'tool_call', 1).click();
    await expect(details.getByTestId('span-error')).toBeVisible();
    await expectNoHorizontalScroll(page);
    await shots(page, 'trace-error-390');
  });
});

// With E2E_SCREENSHOTS only: the dearest model call picked out. The sandbox costs nothing, so the
// trace's answer is given prices on its way to the page (the layout is what is looked at).
test('screenshots: the dearest model call', async ({ page, request }) => {
  test.skip(!process.env.E2E_SCREENSHOTS, 'screenshots only');
  test.setTimeout(120_000);
  const api = await withKey(page, request, 'trace-shots');
  const { executionId } = await tracedRun(api);
  const prices = ['0.0042', '0.0127', '0.0031'];
  await page.route(/\/api\/trpc\/[^?]*executions\.trace/, async (route) => {
    const response = await route.fetch();
    const procedures = decodeURIComponent(new URL(route.request().url()).pathname.split('/api/trpc/')[1]!).split(',');
    type Span = { name: string; attributes: Record<string, unknown>; cost?: { usd: string | null } };
    const body = (await response.json()) as { result: { data: { spans: Span[] } } }[];
    const at = procedures.indexOf('executions.trace');
    for (const s of body[at]!.result.data.spans) {
      if (s.name === 'model_call') s.cost = { usd: prices[Number(s.attributes['aas.step'])] ?? '0' };
    }
    await route.fulfill({ response, json: body });
  });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.goto(`/dashboard/executions/${executionId}`);
    await expect(page.getByTestId('trace-dearest')).toHaveCount(1);
    await spanRow(page, 'model_call', 1).click();
    await expectNoHorizontalScroll(page);
    await shots(page, `trace-dearest-${width}`);
  }
});
