import { expect, test, type Page } from '@playwright/test';
import { createKey, signUp } from './helpers';

// The executions list while it stays open: runs started elsewhere (here over the REST API, with
// a key) show up without a reload, and a hidden tab asks the server nothing.

/** Makes the page's document report `state`, as a browser does when its tab is switched away or back. */
async function setVisibility(page: Page, state: 'hidden' | 'visible') {
  await page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
    Object.defineProperty(document, 'hidden', { value: s === 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  }, state);
}

test('runs started over the REST API appear in the open list, without a reload', async ({ page, request }) => {
  test.setTimeout(120_000);
  await signUp(page, 'executions-live');
  const key = await createKey(page, 'Live list');
  await page.getByTestId('secret-done').click();
  const auth = { Authorization: `Bearer ${key}` };
  const agent = await request.post('/v1/agents', { headers: auth, data: { name: 'API echo', model: 'sandbox/echo' } });
  expect(agent.status()).toBe(201);
  const agentId = ((await agent.json()) as { id: string }).id;
  async function execute(input: string): Promise<string> {
    const res = await request.post(`/v1/agents/${agentId}/execute`, { headers: auth, data: { input } });
    expect(res.status()).toBe(202);
    return ((await res.json()) as { id: string }).id;
  }

  await page.getByTestId('nav-executions').click();
  await expect(page.getByTestId('executions-empty')).toContainText('No executions yet');
  // A reload would start a new document without this mark.
  await page.evaluate(() => Object.assign(window, { stillTheSamePage: true }));
  const rows = page.getByTestId('execution-row');
  // The list asks every 5 s, then refreshes: two round trips, slow on a busy machine.
  const soon = { timeout: 30_000 };

  // Into the empty list.
  const first = await execute('hello from the API');
  await expect(rows.first()).toHaveAttribute('data-execution-id', first, soon);
  await expect(rows.first().getByTestId('execution-status')).toHaveText('Succeeded', soon);

  // Nothing queued or running any more: the next run still shows up, on top.
  const second = await execute('and once more');
  await expect(rows.first()).toHaveAttribute('data-execution-id', second, soon);
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId('execution-status')).toHaveText('Succeeded', soon);

  // Idle, the page asks for the newest run alone (one row) every few seconds. Right after one
  // such answer, hidden, it asks nothing; shown again, it catches up.
  await page.waitForResponse((r) => r.url().includes('executions.list') && /"limit":1[,}]/.test(decodeURIComponent(r.url())));
  await setVisibility(page, 'hidden');
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('executions.list')) asked.push(r.url());
  });
  const third = await execute('while nobody looks');
  await page.waitForTimeout(12_000);
  expect(asked).toEqual([]);
  await setVisibility(page, 'visible');
  await expect(rows.first()).toHaveAttribute('data-execution-id', third, soon);
  await expect(rows).toHaveCount(3);

  expect(await page.evaluate(() => (window as unknown as { stillTheSamePage?: boolean }).stillTheSamePage)).toBe(true);
});
