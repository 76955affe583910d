import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, openSection, shot, signUp } from './helpers';

// Approvals (docs/approvals.md) in a real browser. An agent's HTTP tool `refund` is set to
// `approval: "always"`; the offline sandbox model calls the tool its input names, so "please
// refund order 7" pauses the run on that call (`requires_action`) until someone decides it. The
// tool's URL is a closed port: an approved call fails (a tool error the model is told), a denied
// one never runs. Runs are started over the REST API, and show up in the open page without a reload.

const PARAMETERS = { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] };
const REFUND_TOOL = { type: 'http', name: 'refund', description: 'Refunds an order.', url: 'http://127.0.0.1:9/refund', method: 'POST', parameters: PARAMETERS, approval: 'always' };
/** The page reads the paused runs every few seconds: a round trip or two on a busy machine. */
const soon = { timeout: 30_000 };

interface Setup {
  execute: (input: string) => Promise<string>;
  agentId: string;
}

/** Signs up, makes a key and (over the API) the agent whose `refund` tool needs approval; `execute` starts a run and returns its id. */
async function setup(page: Page, request: APIRequestContext, label: string): Promise<Setup> {
  await signUp(page, label);
  const key = await createKey(page, 'Approvals');
  await page.getByTestId('secret-done').click();
  const auth = { Authorization: `Bearer ${key}` };
  const agent = await request.post('/v1/agents', { headers: auth, data: { name: 'Refund desk', model: 'sandbox/echo', tools: [REFUND_TOOL] } });
  expect(agent.status()).toBe(201);
  const agentId = ((await agent.json()) as { id: string }).id;
  return {
    agentId,
    execute: async (input) => {
      const res = await request.post(`/v1/agents/${agentId}/execute`, { headers: auth, data: { input } });
      expect(res.status()).toBe(202);
      return ((await res.json()) as { id: string }).id;
    },
  };
}

test('approve, edit and deny on the Approvals page; the count and the execution pages follow', async ({ page, request }) => {
  test.setTimeout(240_000);
  const { execute } = await setup(page, request, 'approvals');
  const count = page.getByTestId('nav-approvals-count');

  await openSection(page, 'approvals');
  await expect(page).toHaveURL(/\/dashboard\/approvals$/);
  await expect(page.getByTestId('approvals-empty')).toContainText('Nothing awaits approval');
  await expect(count).toHaveCount(0);
  // A reload would start a new document without this mark.
  await page.evaluate(() => Object.assign(window, { stillTheSamePage: true }));

  // A paused run's call shows up, with its agent, execution, tool, arguments and time left.
  const calls = page.getByTestId('pending-call');
  const cardOf = (executionId: string) => calls.filter({ hasText: executionId });
  const approved = await execute('please refund order 7');
  await expect(calls).toHaveCount(1, soon);
  await expect(count).toHaveText('1', soon);
  const card = cardOf(approved);
  await expect(card.getByTestId('pending-call-tool')).toHaveText('refund');
  await expect(card.getByTestId('pending-call-agent')).toContainText('Refund desk');
  await expect(card.getByTestId('pending-call-execution')).toHaveText(approved);
  await expect(card.getByTestId('pending-call-arguments')).toContainText('"orderId": "order 7"');
  await expect(card.getByTestId('pending-call-expiry')).toHaveText(/^(23 h 5\d min|1 d 0 h) left$/);

  const edited = await execute('please refund order 8');
  const denied = await execute('please refund order 9');
  await expect(calls).toHaveCount(3, soon);
  await expect(count).toHaveText('3', soon);

  // Approve: the call goes, and the count with it.
  await card.getByTestId('approve-call').click();
  await expect(cardOf(approved)).toHaveCount(0);
  await expect(count).toHaveText('2');

  // Edit the arguments: what is not a JSON object is refused here, what does not match the
  // tool's parameters by the server (on the field); then approved with the edited arguments.
  const editCard = cardOf(edited);
  await editCard.getByTestId('edit-call').click();
  const args = editCard.getByTestId('arguments-input');
  await expect(args).toHaveValue(/"orderId": "order 8"/);
  await args.fill('{"orderId": ');
  await editCard.getByTestId('approve-edited').click();
  await expect(editCard).toContainText('This is not valid JSON.');
  await expect(args).toHaveAttribute('aria-invalid', 'true');
  await args.fill('["8"]');
  await editCard.getByTestId('approve-edited').click();
  await expect(editCard).toContainText('The arguments must be a JSON object');
  await args.fill('{"orderId": 8}');
  await editCard.getByTestId('approve-edited').click();
  await expect(editCard.locator('[id$="-arguments-error"]')).not.toBeEmpty();
  await expect(args).toHaveAttribute('aria-invalid', 'true');
  await expect(cardOf(edited)).toHaveCount(1);
  await shot(page, 'approvals-edit-refused');
  await args.fill('{"orderId": "8-edited"}');
  await expect(args).not.toHaveAttribute('aria-invalid');
  await editCard.getByTestId('approve-edited').click();
  await expect(cardOf(edited)).toHaveCount(0);
  await expect(count).toHaveText('1');

  // Deny, with a reason: a confirmation first (cancelling it keeps the call).
  await cardOf(denied).getByTestId('deny-call').click();
  const dialog = page.getByTestId('deny-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(cardOf(denied)).toHaveCount(1);
  await cardOf(denied).getByTestId('deny-call').click();
  await dialog.getByTestId('deny-reason').fill('Order 9 was refunded already');
  await dialog.getByTestId('deny-confirm').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('approvals-empty')).toBeVisible();
  await expect(count).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { stillTheSamePage?: boolean }).stillTheSamePage)).toBe(true);

  // Each execution ran on, and its steps show the decision: by whom, the edited arguments, the reason.
  const decision = page.getByTestId('call-decision');
  await page.goto(`/dashboard/executions/${approved}`);
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', /^(succeeded|failed)$/, soon);
  await expect(decision.getByTestId('call-decision-badge')).toHaveText('Approved');
  await expect(decision.getByTestId('call-decision-by')).toHaveText('you, in the dashboard');
  await expect(decision.getByTestId('call-decision-arguments')).toHaveCount(0);

  await page.goto(`/dashboard/executions/${edited}`);
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', /^(succeeded|failed)$/, soon);
  await expect(decision.getByTestId('call-decision-badge')).toHaveText('Approved');
  await expect(decision.getByTestId('call-decision-arguments')).toContainText('"orderId": "8-edited"');

  await page.goto(`/dashboard/executions/${denied}`);
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded', soon);
  await expect(decision.getByTestId('call-decision-badge')).toHaveText('Denied');
  await expect(decision.getByTestId('call-decision-reason')).toContainText('Order 9 was refunded already');
  await shot(page, 'approvals-execution-denied');
  // The model was told the reason.
  await expect(page.getByTestId('execution-output')).toContainText('Order 9 was refunded already');

  // On the execution page itself: the pause shows inline with the same answers, and after the
  // decision the page follows the resumed run to its end, without a reload.
  const inline = await execute('please refund order 10');
  await page.goto(`/dashboard/executions/${inline}`);
  const executionPage = page.getByTestId('execution-page');
  await expect(executionPage).toHaveAttribute('data-status', 'requires_action', soon);
  await expect(page.getByTestId('execution-status').first()).toHaveText('Awaiting approval');
  await expect(count).toHaveText('1', soon);
  const pause = page.getByTestId('execution-approvals');
  await expect(pause.getByTestId('pending-call-tool')).toHaveText('refund');
  await page.evaluate(() => Object.assign(window, { stillTheSamePage: true }));
  await shot(page, 'approvals-execution-paused');
  await pause.getByTestId('approve-call').click();
  await expect(executionPage).toHaveAttribute('data-status', /^(succeeded|failed)$/, soon);
  await expect(pause).toHaveCount(0);
  await expect(decision.getByTestId('call-decision-badge')).toHaveText('Approved');
  await expect(page.getByTestId('execution-tool-call').first()).toContainText(/error|returned/);
  await expect(count).toHaveCount(0, soon);
  expect(await page.evaluate(() => (window as unknown as { stillTheSamePage?: boolean }).stillTheSamePage)).toBe(true);
});

test('the agent form sets the approval; the playground pauses, is approved, and runs on', async ({ page }) => {
  test.setTimeout(150_000);
  await signUp(page, 'approvals-playground');
  await page.goto('/dashboard/agents/new');
  await page.getByLabel('Name', { exact: true }).fill('Refund helper');
  await page.getByTestId('agent-model-input').fill('echo');
  const timeout = page.getByLabel('Approval timeout (seconds)');
  await expect(timeout).toHaveValue('86400');
  await timeout.fill('30');
  await page.getByTestId('add-tool').click();
  const tool = page.getByTestId('tool-editor');
  await tool.getByLabel('Name').fill('refund');
  await tool.getByLabel('Description').fill('Refunds an order.');
  await tool.getByLabel('URL').fill('http://127.0.0.1:9/refund');
  await tool.getByLabel('Parameters (JSON Schema)').fill(JSON.stringify(PARAMETERS));
  await expect(tool.getByTestId('tool-approval')).toHaveValue('never');
  await tool.getByTestId('tool-approval').selectOption('always');
  await shot(page, 'approvals-agent-form');
  await page.getByTestId('agent-submit').click();
  await expect(page.locator('#agent-approvalTimeoutSeconds-error')).toContainText('from 60');
  await timeout.fill('3600');
  await page.getByTestId('agent-submit').click();
  await page.getByTestId('tool-secret-modal').getByTestId('tool-secret-done').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/agt_/);
  await expect(page.getByTestId('agent-tool-approval')).toHaveText('Needs approval');
  await expect(page.getByTestId('agent-approval-timeout')).toContainText('1 hour');

  // The turn pauses on the call, with its answers, where it stopped.
  await page.getByTestId('playground-input').fill('please refund order 5');
  await page.getByTestId('playground-send').click();
  const turn = page.getByTestId('playground-turn').last();
  await expect(turn).toHaveAttribute('data-status', 'requires_action', soon);
  const paused = turn.getByTestId('playground-paused');
  await expect(paused.getByTestId('pending-call-tool')).toHaveText('refund');
  await expect(paused.getByTestId('pending-call-expiry')).toHaveText(/^(59 min \d+ s|1 h 0 min) left$/);
  await expect(page.getByTestId('nav-approvals-count')).toHaveText('1', soon);
  await shot(page, 'approvals-playground-paused');

  // Approved: the turn follows the run to its end (the tool's failure is what the model answers).
  await paused.getByTestId('approve-call').click();
  await expect(turn).toHaveAttribute('data-status', /^(succeeded|failed)$/, soon);
  await expect(paused).toHaveCount(0);
  await expect(turn.getByTestId('playground-tool')).toContainText('Approved');
  await expect(turn.getByTestId('reply-text')).toContainText('refund tool');
  await expect(page.getByTestId('nav-approvals-count')).toHaveCount(0, soon);
  await shot(page, 'approvals-playground-done');
});

test('the Approvals page with a pending call fits a 390px phone', async ({ page, request }) => {
  test.setTimeout(120_000);
  const { execute } = await setup(page, request, 'approvals-phone');
  await execute('please refund order 11, the parcel never arrived and the customer has waited for three weeks');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/dashboard/approvals');
  await expect(page.getByTestId('pending-call')).toHaveCount(1, soon);
  await expect(page.getByTestId('nav-menu-approvals-count')).toHaveText('1', soon);
  await expectNoHorizontalScroll(page);
  for (const id of ['approve-call', 'edit-call', 'deny-call']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
  await shot(page, 'approvals-390');
  // Editing the arguments, and the deny dialog, fit too.
  await page.getByTestId('edit-call').click();
  await expect(page.getByTestId('arguments-input')).toBeVisible();
  await expectNoHorizontalScroll(page);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('deny-call').click();
  await expect(page.getByTestId('deny-dialog')).toBeVisible();
  await expectNoHorizontalScroll(page);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('deny-dialog')).toBeHidden();
  // The menu panel lists Approvals with its count, every link still in view at once.
  await page.getByTestId('nav-menu').click();
  await expect(page.getByTestId('nav-approvals-count')).toHaveText('1');
  for (const link of await page.getByRole('navigation', { name: 'Main' }).getByRole('link').all()) await expect(link).toBeInViewport({ ratio: 1 });
  await expectNoHorizontalScroll(page);
  await page.getByTestId('nav-approvals').click();
  await expect(page.getByTestId('nav-menu')).toHaveAttribute('aria-expanded', 'false');

  // On a tablet the count stays on the Menu button; from 1024 px up the links sit in the header,
  // the count beside Approvals.
  for (const width of [640, 768, 1024, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    if (width < 1024) {
      await expect(page.getByTestId('nav-menu-approvals-count')).toBeInViewport({ ratio: 1 });
    } else {
      await expect(page.getByTestId('nav-approvals-count')).toBeInViewport({ ratio: 1 });
      await expect(page.getByTestId('nav-docs')).toBeInViewport({ ratio: 1 });
    }
    await expectNoHorizontalScroll(page);
    await shot(page, `approvals-${width}`);
  }
});
