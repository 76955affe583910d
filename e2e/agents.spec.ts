import { expect, test, type Page } from '@playwright/test';
import { expectNoHorizontalScroll, openSection, shot, signUp } from './helpers';

// Agents, the playground and executions in a real browser. `sandbox/slow` streams its answer
// word by word (200 ms apart), `sandbox/echo` answers at once; both answer "Echo: <input>".

const LONG_INPUT = Array.from({ length: 120 }, (_, i) => `word${i + 1}`).join(' ');

/**
 * Creates an agent through the form (name and sandbox model only) and opens its page: with no
 * tools there is nothing to sign, so no tool-secret modal stands in the way.
 */
async function createAgent(page: Page, name: string, modelId: 'echo' | 'slow'): Promise<string> {
  await page.goto('/dashboard/agents/new');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByTestId('agent-model-input').fill(modelId);
  await page.getByTestId('agent-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/agt_[0-9A-Za-z]+$/);
  await expect(page.getByTestId('agent-name')).toContainText(name);
  await expect(page.getByTestId('tool-secret-modal')).toHaveCount(0);
  return page.url().split('/').pop()!;
}

/** The text of the last reply in the playground. */
const lastReply = (page: Page) => page.getByTestId('playground-reply').last();

async function send(page: Page, text: string) {
  await page.getByTestId('playground-input').fill(text);
  await page.getByTestId('playground-send').click();
}

test('create an agent, watch its reply stream, continue the conversation, find the runs', async ({ page, context, baseURL, request }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await signUp(page, 'agents');
  await page.getByTestId('nav-agents').click();
  await expect(page).toHaveURL(/\/dashboard\/agents$/);
  await expect(page.getByTestId('agents-empty')).toContainText('No live agents yet');
  await page.getByTestId('new-agent').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/new$/);

  // What the browser checks, on the field concerned; the message goes once the field is edited.
  await page.getByTestId('agent-submit').click();
  const nameError = page.getByText('Give the agent a name.');
  await expect(nameError).toBeVisible();
  const name = page.getByLabel('Name', { exact: true });
  await name.fill('Order helper');
  await expect(nameError).toHaveCount(0);
  await expect(page.getByTestId('agent-provider')).toHaveValue('sandbox');
  await page.getByTestId('agent-model-input').fill('slow');
  await page.getByLabel('Instructions (optional)').fill('Answer briefly.');

  await page.getByTestId('add-tool').click();
  const tool = page.getByTestId('tool-editor');
  await tool.getByLabel('Name').fill('lookup_order');
  await tool.getByLabel('Description').fill('Looks an order up by its number.');
  await tool.getByLabel('URL').fill('http://user:secret@127.0.0.1:9/orders');
  const parameters = tool.getByLabel('Parameters (JSON Schema)');
  await parameters.fill('{"type": "array"}');
  await page.getByTestId('agent-submit').click();
  const schemaError = tool.getByText('The parameters must be a JSON Schema object with "type": "object".');
  await expect(schemaError).toBeVisible();
  await expect(parameters).toHaveAttribute('aria-invalid', 'true');
  await parameters.fill('{"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"]}');
  await expect(schemaError).toHaveCount(0);

  // What only the server knows (a URL with credentials is refused; the e2e server allows private
  // addresses for its local webhook receiver) lands on the field it names: tools.0.url.
  await page.getByTestId('agent-submit').click();
  const url = tool.getByLabel('URL');
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(tool.locator('#agent-tools-0-url-error')).toContainText('credentials');
  // A public address literal: accepted without DNS, and never called (no message names the tool).
  await url.fill('https://93.184.215.14/orders/lookup');
  await expect(url).not.toHaveAttribute('aria-invalid');
  await page.getByTestId('agent-submit').click();

  // The tool secret is shown once, with a copy button.
  const secretModal = page.getByTestId('tool-secret-modal');
  const secret = await secretModal.getByTestId('tool-secret-value').inputValue();
  expect(secret).toMatch(/^whsec_/);
  await secretModal.getByTestId('tool-secret-copy').click();
  await expect(secretModal.getByTestId('tool-secret-copy')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await secretModal.getByTestId('tool-secret-done').click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/agt_/);
  await expect(page.getByTestId('agent-name')).toContainText('Order helper');
  await expect(page.getByTestId('agent-details')).toContainText('sandbox/slow');
  await expect(page.getByTestId('agent-tool')).toContainText('lookup_order');
  await expect(page.getByTestId('tool-signing-note')).toContainText('Rotate tool secret');
  expect(await page.content()).not.toContain(secret);

  // Rotating the tool secret: a confirmation first, then the new secret once, with a copy button.
  await page.getByTestId('rotate-tool-secret').click();
  const rotate = page.getByTestId('rotate-tool-secret-dialog');
  await expect(rotate).toContainText('keeps signing for 24 hours');
  await rotate.getByRole('button', { name: 'Cancel' }).click();
  await expect(rotate).toBeHidden();
  await page.getByTestId('rotate-tool-secret').click();
  await rotate.getByTestId('rotate-tool-secret-confirm').click();
  await expect(rotate).toBeHidden();
  const rotatedModal = page.getByTestId('tool-secret-modal');
  await expect(rotatedModal).toContainText('was rotated');
  const rotated = await rotatedModal.getByTestId('tool-secret-value').inputValue();
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await expect(rotatedModal.getByTestId('previous-tool-secret-note')).toContainText('24 hours');
  await rotatedModal.getByTestId('tool-secret-copy').click();
  await expect(rotatedModal.getByTestId('tool-secret-copy')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rotated);
  await shot(page, 'agent-rotated-tool-secret-1280');
  await rotatedModal.getByTestId('tool-secret-done').click();
  await expect(rotatedModal).toBeHidden();
  expect(await page.content()).not.toContain(rotated);

  // The reply streams in: read twice, the second read is longer, and it ends complete.
  const first = 'Hello there from the dashboard playground, please echo every one of these words';
  await send(page, first);
  const reply = lastReply(page);
  await expect.poll(async () => (await reply.innerText()).startsWith('Echo:')).toBe(true);
  const early = (await reply.innerText()).length;
  await expect.poll(async () => (await reply.innerText()).length, { timeout: 5_000 }).toBeGreaterThan(early);
  await expect(reply.getByTestId('reply-text')).toHaveText(`Echo: ${first}`, { timeout: 15_000 });
  await expect(page.getByTestId('playground-turn').last()).toHaveAttribute('data-status', 'succeeded');
  const conversation = await page.getByTestId('playground-conversation').innerText();
  expect(conversation).toMatch(/conv_/);

  // The next message continues the same conversation.
  await send(page, 'And a second message');
  await expect(lastReply(page).getByTestId('reply-text')).toHaveText('Echo: And a second message', { timeout: 15_000 });
  await expect(page.getByTestId('playground-turn')).toHaveCount(2);
  await expect(page.getByTestId('playground-conversation')).toHaveText(conversation);
  await shot(page, 'agent-playground-1280');

  // "New conversation" starts over.
  await page.getByTestId('new-conversation').click();
  await expect(page.getByTestId('playground-empty')).toBeVisible();
  await expect(page.getByTestId('playground-conversation')).not.toContainText('conv_');

  // Both runs are in the executions list; the first opens with its steps and conversation.
  await page.getByTestId('nav-executions').click();
  await expect(page).toHaveURL(/\/dashboard\/executions$/);
  const rows = page.getByTestId('execution-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId('execution-status')).toHaveText('Succeeded');
  await page.getByTestId('filter-status').selectOption('failed');
  await expect(page.getByTestId('executions-empty')).toContainText('No executions match');
  await page.getByTestId('filter-status').selectOption('succeeded');
  await expect(rows).toHaveCount(2);
  await shot(page, 'executions-1280');
  await rows.filter({ hasText: first }).getByRole('link').first().click();
  await expect(page).toHaveURL(/\/dashboard\/executions\/exe_/);
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('execution-output')).toContainText(`Echo: ${first}`);
  await expect(page.getByTestId('execution-model')).toContainText('sandbox/slow');
  await expect(page.getByTestId('execution-agent')).toContainText('Order helper');
  await expect(page.getByTestId('execution-step')).toHaveCount(1);
  await expect(page.getByTestId('conversation-message')).toHaveCount(4);
  await expect(page.getByTestId('cancel-execution')).toHaveCount(0);
  await shot(page, 'execution-1280');

  // The dashboard's event stream: the signed-in user's own executions only, replayed in full once finished.
  const stream = `/api/dashboard/executions/${page.url().split('/').pop()}/stream`;
  expect((await request.get(stream)).status()).toBe(401);
  expect((await page.request.get(`${stream}?environment=test`)).status()).toBe(404);
  const replay = await page.request.get(stream);
  expect(replay.headers()['content-type']).toContain('text/event-stream');
  const events = await replay.text();
  expect(events).toContain('event: execution.started');
  expect(events).toContain('event: text.delta');
  expect(events).toMatch(/event: execution\.succeeded\ndata: /);
  const last = Number([...events.matchAll(/^id: (\d+)$/gm)].at(-1)![1]);
  expect((await page.request.get(stream, { headers: { 'Last-Event-ID': String(last) } })).status()).toBe(204);
});

test('the execution page follows a running execution from its event stream, not by polling', async ({ page }) => {
  await signUp(page, 'follow');
  await createAgent(page, 'Live narrator', 'slow');
  // 40 words, 200 ms apart: about 8 s of streaming.
  const input = LONG_INPUT.split(' ').slice(0, 40).join(' ');
  await send(page, input);
  await expect(page.getByTestId('playground-turn').last()).toHaveAttribute('data-status', 'running');
  const reads: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/trpc/') && r.url().includes('executions.get')) reads.push(r.url());
  });
  await page.getByTestId('playground-execution-link').last().click();
  await expect(page).toHaveURL(/\/dashboard\/executions\/exe_/);
  const execution = page.getByTestId('execution-page');
  await expect(execution).toHaveAttribute('data-status', 'running');

  // The answer grows on the page as its text.delta events arrive.
  const live = page.getByTestId('execution-live-output');
  await expect(live).toContainText('Echo:');
  const early = (await live.innerText()).length;
  await expect.poll(async () => (await live.innerText()).length, { timeout: 5_000 }).toBeGreaterThan(early);

  // The terminal event carries the finished execution: the page settles without reading it again.
  await expect(execution).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('execution-output')).toContainText(`Echo: ${input}`);
  await expect(live).toHaveCount(0);
  await expect(page.getByTestId('execution-step')).toHaveCount(1);
  await expect(page.getByTestId('conversation-message')).toHaveCount(2);
  expect(reads.length, 'executions.get while the run streamed').toBeLessThanOrEqual(1);
});

test('cancel a slow run from its execution page and in the playground, then delete the agent', async ({ page }) => {
  await signUp(page, 'cancel');
  await createAgent(page, 'Slow talker', 'slow');
  // Without an HTTP tool nothing is signed: no tool secret to rotate (offered once one is added).
  await expect(page.getByTestId('rotate-tool-secret')).toHaveCount(0);
  await expect(page.getByTestId('tool-signing-note')).toHaveCount(0);

  // A long answer (120 words, 200 ms apart): open its execution while it runs and cancel it there.
  await send(page, LONG_INPUT);
  await expect(page.getByTestId('playground-turn').last()).toHaveAttribute('data-status', 'running');
  await page.getByTestId('playground-execution-link').last().click();
  await expect(page).toHaveURL(/\/dashboard\/executions\/exe_/);
  const execution = page.getByTestId('execution-page');
  await expect(execution).toHaveAttribute('data-status', /queued|running/);
  await page.getByTestId('cancel-execution').click();
  const dialog = page.getByTestId('cancel-execution-dialog');
  await expect(dialog).toContainText('Cancel this execution?');
  await dialog.getByTestId('cancel-execution-confirm').click();
  await expect(dialog).toBeHidden();
  await expect(execution).toHaveAttribute('data-status', 'cancelled');
  await expect(execution.getByTestId('execution-status').first()).toHaveText('Cancelled');
  await expect(page.getByTestId('cancel-execution')).toHaveCount(0);

  // In the playground, "Cancel run" stops the reply where it is.
  await page.getByTestId('execution-agent-link').click();
  await send(page, LONG_INPUT);
  await expect.poll(async () => (await lastReply(page).innerText()).length).toBeGreaterThan(10);
  await page.getByTestId('playground-cancel').click();
  await expect(page.getByTestId('playground-turn').last()).toHaveAttribute('data-status', 'cancelled');
  const partial = await lastReply(page).getByTestId('reply-text').innerText();
  expect(partial.length).toBeLessThan(`Echo: ${LONG_INPUT}`.length);

  await page.getByTestId('nav-executions').click();
  await page.getByTestId('filter-status').selectOption('cancelled');
  await expect(page.getByTestId('execution-row')).toHaveCount(2);

  // Delete the agent, through the confirmation.
  await page.getByTestId('nav-agents').click();
  await page.getByTestId('agent-row').getByRole('link', { name: 'Slow talker', exact: true }).click();
  await page.getByTestId('delete-agent').click();
  const confirm = page.getByTestId('delete-agent-dialog');
  await expect(confirm).toContainText('queued and running executions will be cancelled');
  await confirm.getByTestId('delete-agent-confirm').click();
  await expect(page).toHaveURL(/\/dashboard\/agents$/);
  await expect(page.getByTestId('agents-empty')).toBeVisible();
});

test.describe('on a 390px phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the agents list, an agent with a reply and the executions never scroll sideways', async ({ page }) => {
    await signUp(page, 'agents-mobile');
    await openSection(page, 'agents');
    await expect(page.getByTestId('agents-empty')).toBeVisible();
    await expectNoHorizontalScroll(page);
    for (const id of ['nav-menu', 'new-agent']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });

    await page.getByTestId('new-agent').click();
    await page.getByTestId('add-tool').click();
    await page.getByTestId('agent-submit').click();
    await expect(page.getByText('Give the agent a name.')).toBeVisible();
    await expectNoHorizontalScroll(page);

    await createAgent(page, 'Pocket echo with a rather long name for a small screen', 'echo');
    await send(page, 'A reply on a phone, long enough to wrap over several lines of the transcript without pushing the page sideways');
    await expect(lastReply(page).getByTestId('reply-text')).toContainText('Echo: A reply on a phone', { timeout: 15_000 });
    await expectNoHorizontalScroll(page);
    await expect(page.getByTestId('playground-send')).toBeInViewport();
    await shot(page, 'agent-playground-390');

    await openSection(page, 'agents');
    await expect(page.getByTestId('agent-row')).toHaveCount(1);
    await expectNoHorizontalScroll(page);

    await openSection(page, 'executions');
    await expect(page.getByTestId('execution-row')).toHaveCount(1);
    await expectNoHorizontalScroll(page);
    await page.getByTestId('execution-row').getByRole('link').first().click();
    await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded');
    await expectNoHorizontalScroll(page);
    await expect(page.getByTestId('execution-agent')).toContainText('Pocket echo');
    await shot(page, 'execution-390');
  });
});
