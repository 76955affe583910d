import { expect, test } from '@playwright/test';
import { createKey, pageText, shot, signUp } from './helpers';

const DEFAULT_SCOPES = ['agents:read', 'agents:write', 'agents:execute', 'analytics:read'];

test('create a key, see its secret once, use it, revoke it', async ({ page, context, request, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await signUp(page, 'keys');
  await expect(page.getByTestId('keys-empty')).toBeVisible();
  await expect(page.getByTestId('keys-empty')).toContainText('No live keys yet');

  // The dialog starts with the default scopes ticked and keys:manage not.
  await page.getByTestId('create-key').click();
  const dialog = page.getByTestId('create-key-dialog');
  for (const scope of DEFAULT_SCOPES) await expect(dialog.getByTestId(`scope-${scope}`)).toBeChecked();
  await expect(dialog.getByTestId('scope-keys:manage')).not.toBeChecked();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  const secret = await createKey(page, 'CI deploy key', ['keys:manage']);
  expect(secret).toMatch(/^svc_live_sk_[0-9A-Za-z]{32,}$/);
  const modal = page.getByTestId('secret-modal');
  await expect(modal).toContainText('will not be shown again');
  // Only "Done" dismisses it: Escape does not.
  await page.keyboard.press('Escape');
  await expect(modal).toBeVisible();

  await modal.getByTestId('secret-copy').click();
  await expect(modal.getByTestId('secret-copy')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  await modal.getByTestId('secret-done').click();
  await expect(modal).toBeHidden();
  const row = page.getByTestId('key-row').filter({ hasText: 'CI deploy key' });
  await expect(row).toBeVisible();
  await expect(row.getByTestId('key-prefix')).toHaveText(`${secret.slice(0, 16)}…`);
  await expect(row).toContainText('keys:manage');
  await expect(row).toContainText('Never');
  expect(await pageText(page)).not.toContain(secret);

  await page.reload();
  await expect(row).toBeVisible();
  await expect(row.getByTestId('key-prefix')).toHaveText(`${secret.slice(0, 16)}…`);
  expect(await pageText(page)).not.toContain(secret);

  // The secret works against the public API.
  const auth = { Authorization: `Bearer ${secret}` };
  const listed = await request.get('/v1/keys', { headers: auth });
  expect(listed.status()).toBe(200);
  const body = (await listed.json()) as { data: { id: string; name: string; prefix: string; key?: string }[] };
  const item = body.data.find((k) => k.name === 'CI deploy key');
  expect(item?.prefix).toBe(secret.slice(0, 16));
  expect(item && 'key' in item).toBe(false);

  // Revoke it in the dashboard; the API refuses it at once.
  await row.getByRole('button', { name: 'Revoke CI deploy key' }).click();
  const confirm = page.getByTestId('revoke-dialog');
  await expect(confirm).toContainText('CI deploy key');
  await confirm.getByTestId('revoke-confirm').click();
  await expect(confirm).toBeHidden();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('keys-empty')).toBeVisible();

  const refused = await request.get('/v1/keys', { headers: auth });
  expect(refused.status()).toBe(401);
  const error = (await refused.json()) as { error: { code: string; type: string } };
  expect(error.error.code).toBe('api_key_revoked');
  expect(error.error.type).toBe('authentication_error');
});

test('test mode is a separate list and makes svc_test_sk_ keys', async ({ page, request }) => {
  await signUp(page, 'testmode');
  await createKey(page, 'Live backend');
  await page.getByTestId('secret-done').click();
  await expect(page.getByTestId('key-row')).toHaveCount(1);
  await expect(page.getByTestId('test-mode-badge')).toHaveCount(0);

  await page.getByTestId('env-test').click();
  await expect(page.getByTestId('test-mode-badge')).toBeVisible();
  await expect(page.getByTestId('keys-empty')).toContainText('No test keys yet');
  await expect(page.getByTestId('key-row')).toHaveCount(0);

  const secret = await createKey(page, 'CI sandbox', ['keys:manage']);
  expect(secret).toMatch(/^svc_test_sk_/);
  await page.getByTestId('secret-done').click();
  const row = page.getByTestId('key-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('CI sandbox');
  await expect(row).toContainText('test');

  // The choice survives a reload.
  await page.reload();
  await expect(page.getByTestId('test-mode-badge')).toBeVisible();
  await expect(page.getByTestId('key-row')).toHaveCount(1);
  await expect(page.getByTestId('key-row')).toContainText('CI sandbox');

  // Over the API, the test key sees the test keys only.
  const listed = await request.get('/v1/keys', { headers: { Authorization: `Bearer ${secret}` } });
  expect(listed.status()).toBe(200);
  const body = (await listed.json()) as { data: { name: string; environment: string }[] };
  expect(body.data.map((k) => [k.name, k.environment])).toEqual([['CI sandbox', 'test']]);

  await page.getByTestId('env-live').click();
  await expect(page.getByTestId('test-mode-badge')).toHaveCount(0);
  await expect(page.getByTestId('key-row')).toHaveCount(1);
  await expect(page.getByTestId('key-row')).toContainText('Live backend');
});

test('the list pages with "Load more"', async ({ page, request }) => {
  await signUp(page, 'paging');
  const secret = await createKey(page, 'Provisioner', ['keys:manage']);
  await page.getByTestId('secret-done').click();
  for (let i = 1; i <= 21; i++) {
    const res = await request.post('/v1/keys', {
      headers: { Authorization: `Bearer ${secret}` },
      data: { name: `Batch key ${i}` },
    });
    expect(res.status()).toBe(201);
  }
  await page.reload();
  await expect(page.getByTestId('key-row')).toHaveCount(20);
  await expect(page.getByTestId('key-row').first()).toContainText('Batch key 21');
  await page.getByTestId('load-more').click();
  await expect(page.getByTestId('key-row')).toHaveCount(22);
  await expect(page.getByTestId('key-row').last()).toContainText('Provisioner');
  await expect(page.getByTestId('load-more')).toHaveCount(0);
});

test('a failed load shows an error with a working retry', async ({ page }) => {
  await signUp(page, 'errors');
  await page.route('**/api/trpc/**', (route) => (route.request().url().includes('keys.list') ? route.abort() : route.fallback()));
  await page.reload();
  await expect(page.getByTestId('keys-loading')).toBeVisible();
  const failure = page.getByTestId('keys-error');
  await expect(failure).toBeVisible({ timeout: 20_000 });
  await expect(failure).toContainText('Could not reach the server');
  await page.unroute('**/api/trpc/**');
  await failure.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('keys-empty')).toBeVisible();
});

test('the secret modal shows the whole key and a curl that works as shown', async ({ page, context, request, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await signUp(page, 'curl');
  const secret = await createKey(page, 'Curl check', ['keys:manage']);
  const modal = page.getByTestId('secret-modal');

  // No character of the key is hidden: the field neither scrolls nor clips.
  const value = modal.getByTestId('secret-value');
  expect(await value.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight)).toBe(true);

  const curl = modal.getByTestId('secret-curl');
  await expect(curl).toContainText(`curl ${baseURL}/v1/keys`);
  await expect(curl).toContainText(`Authorization: Bearer ${secret}`);
  await expect(modal.getByTestId('secret-curl-note')).toContainText('which this key has');
  // The typed client beside curl, on this server's address (never the secret a second time).
  await expect(modal.getByTestId('secret-sdk-note')).toContainText(`new Client({ apiKey, baseUrl: '${baseURL}' })`);
  await expect(modal.getByTestId('secret-sdk-note')).not.toContainText(secret);
  await shot(page, 'keys-secret-modal');

  await modal.getByTestId('secret-curl-copy').click();
  await expect(modal.getByTestId('secret-curl-copy')).toHaveText('Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await curl.textContent());

  // Run what was copied: the URL and the header of the snippet answer 200.
  const url = /^curl (\S+)/.exec(copied)?.[1];
  const header = /-H "Authorization: (Bearer \S+)"/.exec(copied)?.[1];
  expect(url && header).toBeTruthy();
  const res = await request.get(url!, { headers: { Authorization: header! } });
  expect(res.status()).toBe(200);
  await modal.getByTestId('secret-done').click();

  // A key with the default scopes is offered the first call its scopes allow: listing agents.
  const plain = await createKey(page, 'Default scopes');
  await expect(modal.getByTestId('secret-curl')).toContainText(`curl ${baseURL}/v1/agents`);
  await expect(modal.getByTestId('secret-curl')).toContainText(`Authorization: Bearer ${plain}`);
  await expect(modal.getByTestId('secret-curl-note')).toContainText('which this key has');
  const listed = await request.get('/v1/agents', { headers: { Authorization: `Bearer ${plain}` } });
  expect(listed.status()).toBe(200);
  expect(await listed.json()).toEqual({ data: [], hasMore: false });
  await modal.getByTestId('secret-done').click();
  expect(await pageText(page)).not.toContain(secret);
});
