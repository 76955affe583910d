import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createKey, signUp } from './helpers';

// What the evals specs share: a signed-up user's REST API with a key that may manage evals
// (`evals:manage` is not a default scope), the agent, dataset and experiments they run on, and a
// screenshot of one card.

export interface EvalsApi {
  post: <T = Record<string, unknown>>(path: string, data: unknown) => Promise<T>;
  patch: <T = Record<string, unknown>>(path: string, data: unknown) => Promise<T>;
  get: <T = Record<string, unknown>>(path: string) => Promise<T>;
}

export async function evalsApi(page: Page, request: APIRequestContext, label: string): Promise<EvalsApi> {
  await signUp(page, label);
  const key = await createKey(page, 'Evals key', ['evals:manage']);
  await page.getByTestId('secret-done').click();
  const headers = { Authorization: `Bearer ${key}` };
  const check = async <T,>(path: string, res: Awaited<ReturnType<APIRequestContext['get']>>) => {
    expect(res.status(), `${path}: ${await res.text()}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
  return {
    post: async (path, data) => check(path, await request.post(path, { headers, data })),
    patch: async (path, data) => check(path, await request.patch(path, { headers, data })),
    get: async (path) => check(path, await request.get(path, { headers })),
  };
}

/**
 * The capitals dataset on the echo model ("Echo: <input>"): Paris expects the echo as text, Rome
 * as JSON (`{"answer": …}`, what the agent answers once it has an output schema), Berlin a wrong
 * answer. With `exact_match`, v1 passes Paris only; v2 (an output schema) passes Rome only.
 */
export async function capitals(api: EvalsApi, agentName = 'Capitals desk'): Promise<{ agentId: string; datasetId: string }> {
  const agent = await api.post<{ id: string }>('/v1/agents', { name: agentName, model: 'sandbox/echo' });
  const dataset = await api.post<{ id: string }>('/v1/datasets', { name: 'Capitals', description: 'Three capitals and the answers expected.' });
  await api.post(`/v1/datasets/${dataset.id}/items`, { input: 'Paris', expected: 'Echo: Paris' });
  await api.post(`/v1/datasets/${dataset.id}/items`, { input: 'Rome', expected: { answer: 'Echo: Rome' } });
  await api.post(`/v1/datasets/${dataset.id}/items`, { input: 'Berlin', expected: 'Bonn' });
  return { agentId: agent.id, datasetId: dataset.id };
}

/** The agent's next version: answers as JSON (`{"answer": "Echo: …"}`). */
export const ANSWER_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };

export const SCORERS = [{ type: 'exact_match' }, { type: 'contains', value: 'Echo' }];

/** Waits until the experiment has ended; returns it. */
export async function ended(api: EvalsApi, id: string): Promise<{ status: string; summary: unknown }> {
  let last: { status: string; summary: unknown } = { status: 'queued', summary: null };
  await expect
    .poll(async () => (last = await api.get<{ status: string; summary: unknown }>(`/v1/experiments/${id}`)).status, { timeout: 60_000, intervals: [500] })
    .toMatch(/^(succeeded|failed|cancelled)$/);
  return last;
}

/** With E2E_SCREENSHOTS=<dir>, a screenshot of one element (a card) there. */
export async function cardShot(el: Locator, name: string): Promise<void> {
  const dir = process.env.E2E_SCREENSHOTS;
  if (dir) await el.screenshot({ path: `${dir}/${name}.png` });
}

/** The results' rows' changes, top to bottom. */
export const changes = (page: Page, row = 'result-row') => page.getByTestId(row).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-change')));
