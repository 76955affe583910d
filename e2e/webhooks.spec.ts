import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { createKey, expectNoHorizontalScroll, openSection, pageText, shot, signUp } from './helpers';

// Webhooks in a real browser, delivering to a real receiver: an HTTP server on 127.0.0.1 in this
// test (the e2e server runs with WEBHOOK_ALLOW_PRIVATE_URLS=true, so the address is accepted).

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Records every request and answers 200 with a small JSON body (410 Gone on /gone). */
async function startReceiver() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const gone = req.url === '/gone';
      res.writeHead(gone ? 410 : 200, { 'content-type': 'application/json' });
      res.end(gone ? '{"error":"gone"}' : '{"received":true}');
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Checks a received request's signature with `secret` (throws when it does not verify) and returns the payload. */
function verify(secret: string, r: Received) {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));
  return new Webhook(secret).verify(r.body, headers) as { id: string; type: string; data: { object: { id: string } } };
}

/** Waits for the receiver's `n`th request. */
async function nth(receiver: { received: Received[] }, n: number): Promise<Received> {
  await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(n);
  return receiver.received[n - 1]!;
}

/** The newest delivery of the log, once it succeeded. */
async function expectDelivered(page: Page, attempts: number) {
  const row = page.getByTestId('delivery-row').first();
  await expect(row).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
  await expect(row.getByTestId('delivery-status-code')).toHaveText('HTTP 200');
  await expect(row.getByTestId('delivery-attempts')).toHaveText(attempts === 1 ? '1 attempt' : `${attempts} attempts`);
  return row;
}

test('add an endpoint, see its secret once, send a signed test event, read the log and the events, delete it', async ({ page, context, baseURL }) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await signUp(page, 'webhooks');
  await page.getByTestId('nav-events').click();
  await expect(page.getByTestId('events-empty').getByRole('link', { name: 'Set up a webhook' })).toHaveAttribute('href', '/dashboard/webhooks');
  await page.getByTestId('nav-webhooks').click();
  await expect(page).toHaveURL(/\/dashboard\/webhooks$/);
  await expect(page.getByTestId('webhooks-empty')).toContainText('No live endpoints yet');

  const receiver = await startReceiver();
  const url = `http://127.0.0.1:${receiver.port}/hook`;
  try {
    // What the browser checks, then what only the server knows, each on its field.
    await page.getByTestId('create-webhook').click();
    const dialog = page.getByTestId('create-webhook-dialog');
    await dialog.getByTestId('create-webhook-submit').click();
    await expect(dialog.getByText('Enter the URL events are sent to.')).toBeVisible();
    const urlField = dialog.getByLabel('Endpoint URL');
    await urlField.fill(url);
    // The execution events are ticked to start with; with none left the form says so.
    for (const type of ['execution.started', 'execution.requires_action', 'execution.succeeded', 'execution.failed', 'execution.cancelled']) await dialog.getByTestId(`event-${type}`).uncheck();
    await dialog.getByTestId('create-webhook-submit').click();
    // The message sits below the checkboxes, past the dialog's fold: it is scrolled into view
    // and the focus goes to the first checkbox.
    await expect(dialog.getByText('Select at least one event type, or all events.')).toBeInViewport();
    await expect(dialog.getByTestId('event-all')).toBeFocused();
    await dialog.getByTestId('event-key.created').check();
    await expect(dialog.getByText('Select at least one event type, or all events.')).toHaveCount(0);
    await urlField.fill(`http://user:pw@127.0.0.1:${receiver.port}/hook`);
    await dialog.getByTestId('create-webhook-submit').click();
    await expect(dialog.locator('#webhook-url-error')).toContainText("'url' must not contain credentials");
    await expect(urlField).toBeFocused();
    await expect(urlField).toHaveAttribute('aria-invalid', 'true');
    await urlField.fill(url);
    await expect(dialog.locator('#webhook-url-error')).toHaveCount(0);
    // "All events" includes every type; unticking it gives the choice back.
    await dialog.getByTestId('event-all').check();
    await expect(dialog.getByTestId('event-agent.created')).toBeDisabled();
    await dialog.getByTestId('event-all').uncheck();
    await dialog.getByTestId('event-key.created').check();
    // The description last: once (1 CI run in 2026-11-26's, not reproduced since) a description
    // typed before the two refused submits was missing from the row.
    await dialog.getByLabel('Description (optional)').fill('E2E receiver');
    await expect(dialog.getByLabel('Description (optional)')).toHaveValue('E2E receiver');
    await dialog.getByTestId('create-webhook-submit').click();

    // The secret, once, with a working copy button; only "Done" closes it.
    const modal = page.getByTestId('webhook-secret-modal');
    await expect(modal).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(modal).toContainText('will not be shown again');
    const secret = await modal.getByTestId('webhook-secret-value').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    await modal.getByTestId('webhook-secret-copy').click();
    await expect(modal.getByTestId('webhook-secret-copy')).toHaveText('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.keyboard.press('Escape');
    await expect(modal).toBeVisible();
    await modal.getByTestId('webhook-secret-done').click();
    await expect(modal).toBeHidden();

    const row = page.getByTestId('webhook-row');
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('webhook-url')).toHaveText(url);
    await expect(row).toContainText('key.created');
    await expect(row).toContainText('E2E receiver');
    await expect(row.getByTestId('webhook-status')).toHaveText('Enabled');
    expect(await pageText(page)).not.toContain(secret);
    await shot(page, 'webhooks-1280');

    // Its page: nothing of the secret there either, even after a reload.
    await row.getByTestId('webhook-url').click();
    await expect(page).toHaveURL(/\/dashboard\/webhooks\/whk_[0-9A-Za-z]+$/);
    const webhookId = page.url().split('/').pop()!;
    await page.reload();
    await expect(page.getByTestId('webhook-title')).toHaveText(url);
    await expect(page.getByTestId('webhook-id')).toHaveText(webhookId);
    await expect(page.getByTestId('deliveries-empty')).toBeVisible();
    expect(await pageText(page)).not.toContain(secret);

    // A test event reaches the receiver, signed with the secret, and shows in the log as succeeded.
    await page.getByTestId('send-test-event').click();
    const first = await nth(receiver, 1);
    expect(first.method).toBe('POST');
    expect(first.path).toBe('/hook');
    expect(String(first.headers['webhook-id'])).toMatch(/^evt_/);
    const payload = verify(secret, first);
    expect(payload.type).toBe('webhook.test');
    expect(payload.id).toBe(first.headers['webhook-id']);
    expect(payload.data.object.id).toBe(webhookId);
    const delivery = await expectDelivered(page, 1);
    await expect(delivery.getByTestId('delivery-event-type')).toHaveText('webhook.test');
    await expect(delivery.getByTestId('delivery-event-id')).toHaveText(payload.id);
    await delivery.getByTestId('delivery-toggle').click();
    await expect(delivery.getByTestId('delivery-attempt')).toHaveCount(1);
    await expect(delivery.getByTestId('attempt-status-code')).toHaveText('200');
    await expect(delivery.getByTestId('attempt-response')).toContainText('"received": true');

    // Resend: the same event again (same webhook-id), a second attempt on the same delivery.
    await delivery.getByTestId('delivery-resend').click();
    const second = await nth(receiver, 2);
    expect(second.headers['webhook-id']).toBe(payload.id);
    verify(secret, second);
    await expectDelivered(page, 2);
    await expect(page.getByTestId('delivery-row')).toHaveCount(1);
    await expect(delivery.getByTestId('delivery-attempt')).toHaveCount(2);
    await shot(page, 'webhook-1280');

    // Paused, it cannot be sent a test event; enabled again, it can.
    const toggle = page.getByTestId('webhook-enabled-toggle');
    await toggle.click();
    await expect(toggle).toHaveText('Enable');
    await expect(page.getByTestId('webhook-status').first()).toHaveText('Disabled');
    await expect(page.getByTestId('send-test-event')).toBeDisabled();
    await toggle.click();
    await expect(toggle).toHaveText('Disable');
    await expect(page.getByTestId('send-test-event')).toBeEnabled();

    // Rotating shows the new secret once; for 24 h deliveries verify with the old one too.
    await page.getByTestId('rotate-secret').click();
    const rotate = page.getByTestId('rotate-secret-dialog');
    await expect(rotate).toContainText('24 hours');
    await rotate.getByTestId('rotate-secret-confirm').click();
    await expect(modal).toBeVisible();
    const rotated = await modal.getByTestId('webhook-secret-value').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await expect(modal.getByTestId('previous-secret-note')).toContainText('24 hours');
    await modal.getByTestId('webhook-secret-done').click();
    await expect(modal).toBeHidden();
    expect(await pageText(page)).not.toContain(rotated);
    await page.getByTestId('send-test-event').click();
    const third = await nth(receiver, 3);
    expect(verify(rotated, third).type).toBe('webhook.test');
    expect(verify(secret, third).id).toBe(third.headers['webhook-id']);
    await expect(page.getByTestId('delivery-row').first().getByTestId('delivery-event-id')).toHaveText(String(third.headers['webhook-id']), { timeout: 20_000 });
    await expectDelivered(page, 1);
    await expect(page.getByTestId('delivery-row')).toHaveCount(2);

    // No change yet in live mode: the event log is empty, and with an endpoint set up it
    // points at making a change rather than at setting up a webhook.
    await page.getByTestId('nav-events').click();
    await expect(page.getByTestId('events-empty')).toContainText('No events yet');
    await expect(page.getByTestId('events-empty').getByRole('link', { name: 'Create an agent' })).toHaveAttribute('href', '/dashboard/agents/new');

    // A real change: creating an API key sends key.created, the one type subscribed to.
    await page.getByTestId('nav-keys').click();
    const apiKey = await createKey(page, 'Webhook trigger');
    await page.getByTestId('secret-done').click();
    const fourth = await nth(receiver, 4);
    const created = verify(rotated, fourth);
    expect(created.type).toBe('key.created');
    expect(fourth.body).not.toContain(apiKey);

    // The event log lists it (test events stay in their webhook's log), with its payload and delivery.
    await page.getByTestId('nav-events').click();
    await expect(page).toHaveURL(/\/dashboard\/events$/);
    const events = page.getByTestId('event-row');
    await expect(events.first()).toHaveAttribute('data-event-id', created.id);
    await page.getByTestId('filter-type').selectOption('key.created');
    await expect(page).toHaveURL(/\/dashboard\/events\?type=key\.created$/);
    await expect(events).toHaveCount(1);
    await events.first().getByTestId('event-toggle').click();
    await expect(events.first().getByTestId('event-payload')).toContainText(created.data.object.id);
    await expect(events.first().getByTestId('event-payload')).toContainText('Webhook trigger');
    const sent = events.first().getByTestId('event-delivery');
    await expect(sent).toHaveCount(1);
    await expect(sent).toHaveAttribute('data-status', 'succeeded', { timeout: 20_000 });
    await expect(sent).toContainText(url);
    await expect(sent).toContainText('HTTP 200');
    await page.getByTestId('filter-type').selectOption('agent.created');
    await expect(page.getByTestId('events-empty')).toContainText('No agent.created events');
    await page.getByTestId('filter-type').selectOption('');
    // The list is remade for the new filter once its URL lands (events/page.tsx keys it by type),
    // closing the rows opened before: a click before that would close the row the filtered list
    // had open, or open one that is then remade closed (1 CI run in 2026-11-29's).
    await expect(page).toHaveURL(/\/dashboard\/events$/);
    await expect(events.first()).toHaveAttribute('data-event-id', created.id);
    await expect(events.first().getByTestId('event-payload')).toHaveCount(0);
    await events.first().getByTestId('event-toggle').click();
    await expect(events.first().getByTestId('event-delivery')).toHaveCount(1);
    await shot(page, 'events-1280');

    // On a 390px phone: nothing scrolls sideways, on the events, the webhook and the list.
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await shot(page, 'events-390');
    await page.goto(`/dashboard/webhooks/${webhookId}`);
    await page.getByTestId('delivery-row').first().getByTestId('delivery-toggle').click();
    await expect(page.getByTestId('delivery-attempt')).toHaveCount(1);
    await expectNoHorizontalScroll(page);
    await shot(page, 'webhook-390');
    await openSection(page, 'webhooks');
    await expect(page.getByTestId('webhook-row')).toHaveCount(1);
    await expectNoHorizontalScroll(page);
    await shot(page, 'webhooks-390');

    // Delete, through the confirmation: back to the empty list.
    await page.getByTestId('webhook-url').click();
    await page.getByTestId('delete-webhook').click();
    const confirm = page.getByTestId('delete-webhook-dialog');
    await expect(confirm).toContainText(url);
    await expectNoHorizontalScroll(page);
    await confirm.getByTestId('delete-webhook-confirm').click();
    await expect(page).toHaveURL(/\/dashboard\/webhooks$/);
    await expect(page.getByTestId('webhooks-empty')).toBeVisible();
    await expect(page.getByTestId('webhook-row')).toHaveCount(0);
    await expectNoHorizontalScroll(page);
  } finally {
    await receiver.close();
  }
});

test('an endpoint that answers 410 Gone is disabled: the note and Enable show on its page and in the list', async ({ page }) => {
  await signUp(page, 'webhooks-gone');
  await page.goto('/dashboard/webhooks');
  const receiver = await startReceiver();
  const url = `http://127.0.0.1:${receiver.port}/gone`;
  try {
    await page.getByTestId('create-webhook').click();
    const dialog = page.getByTestId('create-webhook-dialog');
    await dialog.getByLabel('Endpoint URL').fill(url);
    await dialog.getByTestId('event-all').check();
    await shot(page, 'webhook-create-1280');
    await dialog.getByTestId('create-webhook-submit').click();
    await page.getByTestId('webhook-secret-done').click();
    const row = page.getByTestId('webhook-row');
    await expect(row).toContainText('All events');

    await row.getByTestId('webhook-url').click();
    await page.getByTestId('send-test-event').click();
    await nth(receiver, 1);
    const delivery = page.getByTestId('delivery-row').first();
    await expect(delivery).toHaveAttribute('data-status', 'failed', { timeout: 20_000 });
    await expect(delivery.getByTestId('delivery-status-code')).toHaveText('HTTP 410');
    // The server disabled it: the page says why, and nothing can be sent until it is enabled.
    const note = page.getByTestId('webhook-disabled-note');
    await expect(note).toContainText('Disabled: the endpoint answered 410 Gone');
    await expect(page.getByTestId('send-test-event')).toBeDisabled();
    await delivery.getByTestId('delivery-toggle').click();
    await expect(delivery.getByTestId('delivery-resend')).toBeDisabled();
    await expect(delivery.getByTestId('attempt-status-code')).toHaveText('410');
    await shot(page, 'webhook-gone-1280');

    await page.getByTestId('nav-webhooks').click();
    await expect(row.getByTestId('webhook-status')).toHaveText('Disabled');
    await expect(row.getByTestId('webhook-disabled-note')).toHaveText('Disabled: the endpoint answered 410 Gone');
    await shot(page, 'webhooks-gone-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await shot(page, 'webhooks-gone-390');
    await row.getByTestId('webhook-enable').click();
    await expect(row.getByTestId('webhook-status')).toHaveText('Enabled');
    await expect(row.getByTestId('webhook-disabled-note')).toHaveCount(0);

    // The create dialog fits the phone too.
    await page.getByTestId('create-webhook').click();
    await page.getByTestId('create-webhook-submit').click();
    await expect(page.getByText('Enter the URL events are sent to.')).toBeVisible();
    await expectNoHorizontalScroll(page);
    await shot(page, 'webhook-create-390');
  } finally {
    await receiver.close();
  }
});
