import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createKey, expectNoHorizontalScroll, openSection, shot, signUp } from './helpers';

// Datasets (docs/evals.md, "Datasets") in a real browser: made on the Datasets page, items added
// by hand (a text answer, a JSON one — a bad JSON refused with its error — edited and deleted,
// with confirmation), an ended execution of a sandbox agent added from its own page, the dataset
// renamed and another deleted; at 1280 px, then the list and a dataset's page at 390 px.

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** The REST API with a key that may manage evals (evals:manage is not a default scope). */
async function setUp(page: Page, request: APIRequestContext, label: string) {
  await signUp(page, label);
  const key = await createKey(page, 'Evals key', ['evals:manage']);
  await page.getByTestId('secret-done').click();
  const headers = { Authorization: `Bearer ${key}` };
  return async <T = Record<string, unknown>>(path: string, data: unknown): Promise<T> => {
    const res = await request.post(path, { headers, data });
    expect(res.status(), `${path}: ${await res.text()}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
}

/** An agent on the sandbox model ("Echo: <input>") and one run of it, waited for. */
async function echoRun(post: Awaited<ReturnType<typeof setUp>>, input: string): Promise<{ id: string; output: string }> {
  const agent = await post<{ id: string }>('/v1/agents', { name: 'Order desk', model: 'sandbox/echo' });
  const run = await post<{ id: string; status: string; output: string }>(`/v1/agents/${agent.id}/execute`, { input, wait: true });
  expect(run.status).toBe('succeeded');
  return run;
}

/** Fills and submits the item dialog (open), `json` turning its switch on. */
async function fillItem(dialog: Locator, item: { input?: string; expected: string; json?: boolean }) {
  if (item.input !== undefined) await dialog.getByTestId('item-input').fill(item.input);
  const json = dialog.getByTestId('item-expected-json');
  if (item.json !== undefined) await json.setChecked(item.json);
  await dialog.getByTestId('item-expected').fill(item.expected);
  await dialog.getByTestId('item-submit').click();
}

/** The nav's Evals link (the experiments), then the Datasets tab. */
async function openDatasets(page: Page) {
  await openSection(page, 'evals');
  await expect(page).toHaveURL(/\/dashboard\/experiments$/);
  await page.getByTestId('evals-tab-datasets').click();
}

const rowWith = (page: Page, input: string) => page.getByTestId('item-row').filter({ has: page.getByTestId('item-input-text').getByText(input, { exact: true }) });

test('datasets: made, items by hand (text, JSON, a bad JSON refused), edited and deleted, an execution added from its page', async ({ page, request }) => {
  test.setTimeout(150_000);
  await page.setViewportSize(LAPTOP);
  const post = await setUp(page, request, 'datasets');
  const run = await echoRun(post, 'Where is order 1042?');
  expect(run.output).toBe('Echo: Where is order 1042?');

  // The nav's Evals entry, then its Datasets tab; an empty list says what datasets are for.
  await openDatasets(page);
  await expect(page).toHaveURL(/\/dashboard\/datasets$/);
  await expect(page.getByTestId('nav-evals')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('evals-tab-datasets')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('datasets-empty')).toContainText('A dataset is a set of inputs with the answers you expect; experiments run an agent version over it and score the answers');
  await shot(page, 'datasets-empty-1280');

  // New dataset: a name is needed.
  await page.getByTestId('create-dataset').click();
  const dialog = page.getByTestId('dataset-dialog');
  await dialog.getByTestId('dataset-submit').click();
  await expect(dialog.getByText('Give the dataset a name.')).toBeVisible();
  await dialog.getByTestId('dataset-name').fill('Order questions');
  await dialog.getByTestId('dataset-description').fill('Questions customers ask about their orders, with the answers we expect.');
  await dialog.getByTestId('dataset-submit').click();
  await expect(page).toHaveURL(/\/dashboard\/datasets\/dst_\w+$/);
  const datasetUrl = page.url();
  await expect(page.getByTestId('dataset-name')).toHaveText('Order questions');
  await expect(page.getByTestId('dataset-description')).toHaveText('Questions customers ask about their orders, with the answers we expect.');
  await expect(page.getByTestId('dataset-item-count')).toHaveText('0 items');
  await expect(page.getByTestId('items-empty')).toBeVisible();

  // An item by hand, with a text answer.
  await page.getByTestId('add-item-empty').click();
  const itemDialog = page.getByTestId('item-dialog');
  await fillItem(itemDialog, { input: 'What is the capital of France?', expected: 'Paris' });
  await expect(itemDialog).toBeHidden();
  const rows = page.getByTestId('item-row');
  await expect(rows).toHaveCount(1);
  await expect(rowWith(page, 'What is the capital of France?').getByTestId('item-expected-value')).toHaveText('Paris');
  await expect(rowWith(page, 'What is the capital of France?').getByTestId('item-source')).toContainText('Added by hand');
  await expect(page.getByTestId('dataset-item-count')).toHaveText('1 item');

  // One with a JSON answer: a bad JSON, then a number, are refused with what is wrong; nothing is sent.
  await page.getByTestId('add-item').click();
  await expect(itemDialog).toBeVisible();
  await fillItem(itemDialog, { input: 'Status of order 1042, as JSON', expected: '{orderId: 1042', json: true });
  await expect(itemDialog.locator('#item-expected-error')).toContainText('This is not valid JSON');
  await expect(itemDialog.getByTestId('item-expected')).toHaveAttribute('aria-invalid', 'true');
  await itemDialog.getByTestId('item-expected').fill('42');
  await expect(itemDialog.locator('#item-expected-error')).toContainText('an object {…} or a list […]');
  await itemDialog.getByTestId('item-expected').fill('{"orderId": "1042", "status": "shipped", "items": [1, 2]}');
  await expect(itemDialog.locator('#item-expected-error')).toBeHidden();
  await itemDialog.getByTestId('item-submit').click();
  await expect(itemDialog).toBeHidden();
  await expect(rows).toHaveCount(2);
  const jsonRow = rowWith(page, 'Status of order 1042, as JSON');
  // Newest first; the object as one line of JSON in a code block.
  await expect(rows.first()).toHaveAttribute('data-item-id', (await jsonRow.getAttribute('data-item-id'))!);
  const jsonValue = jsonRow.getByTestId('item-expected-value');
  // (Stored as jsonb: the keys may come back in another order.)
  await expect(jsonValue).toHaveText(/^\{"\w+":.*\}$/);
  expect(JSON.parse((await jsonValue.textContent())!)).toEqual({ orderId: '1042', status: 'shipped', items: [1, 2] });
  expect(await jsonValue.evaluate((e) => e.tagName)).toBe('PRE');

  // A long answer is cut, with the way to see all of it.
  const long = Array.from({ length: 60 }, (_, i) => `Step ${i + 1}: check the order.`).join(' ');
  await page.getByTestId('add-item').click();
  await fillItem(itemDialog, { input: 'How do I check an order?', expected: long, json: false });
  await expect(itemDialog).toBeHidden();
  const longValue = rowWith(page, 'How do I check an order?').getByTestId('item-expected-value');
  await expect(longValue).not.toHaveText(long);
  await expect(longValue).toHaveText(/…$/);
  await rowWith(page, 'How do I check an order?').getByTestId('item-expected-value-toggle').click();
  await expect(longValue).toHaveText(long);
  await expect(page.getByTestId('dataset-item-count')).toHaveText('3 items');

  // Edited: the dialog starts from the item (JSON indented, its switch on), the row shows the change.
  await jsonRow.getByTestId('edit-item').click();
  await expect(itemDialog.getByTestId('item-expected-json')).toBeChecked();
  await expect(itemDialog.getByTestId('item-expected')).toHaveValue(/^\{\n {2}"/);
  expect(JSON.parse(await itemDialog.getByTestId('item-expected').inputValue())).toEqual({ orderId: '1042', status: 'shipped', items: [1, 2] });
  await itemDialog.getByTestId('item-submit').click();
  await expect(itemDialog).toBeHidden();
  const textRow = rowWith(page, 'What is the capital of France?');
  await textRow.getByTestId('edit-item').click();
  await expect(itemDialog.getByTestId('item-input')).toHaveValue('What is the capital of France?');
  await expect(itemDialog.getByTestId('item-expected')).toHaveValue('Paris');
  await expect(itemDialog.getByTestId('item-expected-json')).not.toBeChecked();
  await fillItem(itemDialog, { expected: 'Paris, France' });
  await expect(itemDialog).toBeHidden();
  await expect(textRow.getByTestId('item-expected-value')).toHaveText('Paris, France');

  // Deleted, after a confirmation (Cancel keeps it).
  const longRow = rowWith(page, 'How do I check an order?');
  await longRow.getByTestId('delete-item').click();
  const confirm = page.getByTestId('delete-item-dialog');
  await expect(confirm).toContainText('How do I check an order?');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(rows).toHaveCount(3);
  await longRow.getByTestId('delete-item').click();
  await confirm.getByTestId('delete-item-confirm').click();
  await expect(confirm).toBeHidden();
  await expect(rows).toHaveCount(2);
  await expect(longRow).toHaveCount(0);
  await expect(page.getByTestId('dataset-item-count')).toHaveText('2 items');

  // From an execution's page: its input, and its answer as the expected one.
  await page.goto(`/dashboard/executions/${run.id}`);
  await expect(page.getByTestId('execution-page')).toHaveAttribute('data-status', 'succeeded');
  await shot(page, 'execution-1280');
  await page.getByTestId('add-to-dataset').click();
  const add = page.getByTestId('add-to-dataset-dialog');
  await expect(add.getByTestId('add-to-dataset-dataset')).toContainText('Order questions (2 items)');
  await expect(add.getByTestId('add-to-dataset-input')).toHaveText('Where is order 1042?');
  await expect(add.getByTestId('add-to-dataset-default-value')).toHaveText('Echo: Where is order 1042?');
  await add.getByTestId('add-to-dataset-submit').click();
  const done = page.getByTestId('add-to-dataset-done');
  await expect(done).toContainText('Order questions');
  await expect(done).toContainText('which holds 3 items');
  await expect(done.getByTestId('add-to-dataset-expected-value')).toHaveText('Echo: Where is order 1042?');
  await done.getByTestId('add-to-dataset-close').click();
  await expect(done).toBeHidden();

  // Again, with an expected answer of the user's own (a JSON one).
  await page.getByTestId('add-to-dataset').click();
  await add.getByTestId('add-to-dataset-override').check();
  await expect(add.getByTestId('add-to-dataset-expected')).toHaveValue('Echo: Where is order 1042?');
  await add.getByTestId('add-to-dataset-expected-json').check();
  await add.getByTestId('add-to-dataset-submit').click();
  await expect(add.locator('#add-to-dataset-expected-error')).toContainText('This is not valid JSON');
  await add.getByTestId('add-to-dataset-expected').fill('{"answer": "Order 1042 shipped"}');
  await add.getByTestId('add-to-dataset-submit').click();
  await expect(done.getByTestId('add-to-dataset-expected-value')).toHaveText('{"answer":"Order 1042 shipped"}');
  await done.getByTestId('add-to-dataset-open').click();
  await expect(page).toHaveURL(datasetUrl);

  const fromRun = rowWith(page, 'Where is order 1042?');
  await expect(fromRun).toHaveCount(2);
  await expect(page.getByTestId('dataset-item-count')).toHaveText('4 items');
  await expect(fromRun.getByTestId('item-expected-value')).toHaveText(['{"answer":"Order 1042 shipped"}', 'Echo: Where is order 1042?']);
  for (const link of await fromRun.getByTestId('item-source').getByRole('link').all()) await expect(link).toHaveAttribute('href', `/dashboard/executions/${run.id}`);
  await expectNoHorizontalScroll(page);
  await shot(page, 'dataset-1280');

  // The dataset renamed, its description removed.
  await page.getByTestId('edit-dataset').click();
  await expect(dialog.getByTestId('dataset-name')).toHaveValue('Order questions');
  await dialog.getByTestId('dataset-name').fill('Order questions v2');
  await dialog.getByTestId('dataset-description').fill('');
  await dialog.getByTestId('dataset-submit').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('dataset-name')).toHaveText('Order questions v2');
  await expect(page.getByTestId('dataset-description')).toHaveCount(0);

  // Another one, made and deleted (confirmed): the list keeps the first.
  await page.goto('/dashboard/datasets');
  await page.getByTestId('create-dataset').click();
  await dialog.getByTestId('dataset-name').fill('Scratch');
  await dialog.getByTestId('dataset-submit').click();
  await expect(page.getByTestId('dataset-name')).toHaveText('Scratch');
  await page.getByTestId('delete-dataset').click();
  const confirmDataset = page.getByTestId('delete-dataset-dialog');
  await expect(confirmDataset).toContainText('It holds no items.');
  await confirmDataset.getByTestId('delete-dataset-confirm').click();
  await expect(page).toHaveURL(/\/dashboard\/datasets$/);
  const listRows = page.getByTestId('dataset-row');
  await expect(listRows).toHaveCount(1);
  await expect(listRows.getByTestId('dataset-row-name')).toHaveText('Order questions v2');
  await expect(listRows.getByTestId('dataset-row-items')).toHaveText('4 items', { useInnerText: true });
  await expectNoHorizontalScroll(page);
  await shot(page, 'datasets-1280');

  // From 1024 px up the nav's links (Evals among them) and Docs sit in the header's row.
  for (const width of [1024, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    for (const id of ['nav-evals', 'nav-approvals', 'nav-events', 'nav-docs']) await expect(page.getByTestId(id)).toBeInViewport({ ratio: 1 });
    await expectNoHorizontalScroll(page);
  }
});

test('at 390px the datasets list and a dataset page fit the phone, items as cards with their actions in reach', async ({ page, request }) => {
  test.setTimeout(120_000);
  const post = await setUp(page, request, 'datasets-phone');
  const run = await echoRun(post, 'Can I change the delivery address of order 1042 after it has shipped?');
  const dataset = await post<{ id: string }>('/v1/datasets', {
    name: 'Delivery questions for the customer-support agent, with the answers the team agreed on',
    description: 'What customers ask about deliveries: addresses, dates, carriers and returns. Answers checked by the support team in November.',
  });
  await post('/v1/datasets', { name: 'Refunds', description: 'Refund requests.' });
  await post(`/v1/datasets/${dataset.id}/items`, { input: 'When will order 1042 arrive?', expected: 'Order 1042 arrives on Nov 24.' });
  await post(`/v1/datasets/${dataset.id}/items`, {
    input: 'List the parcels of order 1042 with their carriers and tracking numbers, please.',
    expected: { orderId: '1042', parcels: [{ carrier: 'DHL', tracking: 'JD014600006281230000' }, { carrier: 'UPS', tracking: '1Z999AA10123456784' }], status: 'in_transit' },
  });
  await post(`/v1/datasets/${dataset.id}/items`, { fromExecution: run.id });

  await page.setViewportSize(PHONE);
  await openDatasets(page);
  const listRows = page.getByTestId('dataset-row');
  await expect(listRows).toHaveCount(2);
  await expectNoHorizontalScroll(page);
  await expect(page.getByTestId('create-dataset')).toBeInViewport({ ratio: 1 });
  await shot(page, 'datasets-390');

  // The whole card opens the dataset.
  await listRows.filter({ hasText: 'Delivery questions' }).click({ position: { x: 200, y: 10 } });
  await expect(page).toHaveURL(`/dashboard/datasets/${dataset.id}`);
  await expect(page.getByTestId('item-row')).toHaveCount(3);
  await expect(page.getByTestId('dataset-item-count')).toHaveText('3 items');
  await expectNoHorizontalScroll(page);
  for (const row of await page.getByTestId('item-row').all()) {
    for (const button of [row.getByTestId('edit-item'), row.getByTestId('delete-item')]) {
      await button.scrollIntoViewIfNeeded();
      await expect(button).toBeInViewport({ ratio: 1 });
    }
  }
  await expect(page.getByTestId('item-source').getByRole('link')).toHaveAttribute('href', `/dashboard/executions/${run.id}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'dataset-390');

  // The item dialog fits too, its JSON error included.
  await page.getByTestId('add-item').click();
  const itemDialog = page.getByTestId('item-dialog');
  await fillItem(itemDialog, { input: 'Is order 1042 insured?', expected: '[1, 2', json: true });
  await expect(itemDialog.locator('#item-expected-error')).toContainText('This is not valid JSON');
  await expectNoHorizontalScroll(page);
  await expect(itemDialog.getByTestId('item-submit')).toBeInViewport({ ratio: 1 });
  await shot(page, 'dataset-item-dialog-390');
  await itemDialog.getByTestId('item-expected').fill('{"insured": true}');
  await itemDialog.getByTestId('item-submit').click();
  await expect(itemDialog).toBeHidden();
  await expect(page.getByTestId('item-row')).toHaveCount(4);

  // The execution's page and its dialog on a phone.
  await page.goto(`/dashboard/executions/${run.id}`);
  await expect(page.getByTestId('add-to-dataset')).toBeInViewport({ ratio: 1 });
  await expectNoHorizontalScroll(page);
  await shot(page, 'execution-390');
  await page.getByTestId('add-to-dataset').click();
  const add = page.getByTestId('add-to-dataset-dialog');
  await expect(add.getByTestId('add-to-dataset-dataset')).toBeVisible();
  await expectNoHorizontalScroll(page);
  await expect(add.getByTestId('add-to-dataset-submit')).toBeInViewport({ ratio: 1 });
  await shot(page, 'add-to-dataset-390');
});
