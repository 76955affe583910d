import { expect, test, type Page } from '@playwright/test';
import { expectNoHorizontalScroll, shot } from './helpers';

// /docs as a new reader meets it: a loader while Scalar renders (it was blank for ~5 s), then the
// introduction opening on "Getting started" and "Authentication", the error catalogue after them,
// and a page a phone can scroll (all sections open, it was ~76,000 px tall at 390 px).
// Issue 44: its examples name the origin the page was served from (they said localhost:3000
// under any other), no code is cut (at 1280 px every curl line ended at `-H "Authori…`), the
// sidebar lists "Models" once, and the page holds no blank stretch (19,511 px tall at 1280, half
// of it the empty placeholders of sections not rendered yet).

/** Scrolls to the bottom until the page stops growing, so Scalar has rendered every section. */
async function renderAll(page: Page): Promise<number> {
  let height = 0;
  for (let i = 0; i < 200; i++) {
    const now = await page.evaluate(() => {
      window.scrollBy(0, window.innerHeight);
      return { y: window.scrollY + window.innerHeight, height: document.documentElement.scrollHeight };
    });
    if (now.y >= now.height && now.height === height) break;
    height = now.height;
    await page.waitForTimeout(100); // Scalar renders what comes near the viewport when the browser is idle
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return page.evaluate(() => document.documentElement.scrollHeight);
}

/** The tallest stretch of the reference showing no text at all, and where it starts. */
function largestBlank(page: Page): Promise<{ gap: number; at: number }> {
  return page.evaluate(() => {
    const main = document.querySelector('.references-rendered') ?? document.body;
    const spans: [number, number][] = [];
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent?.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      if (r.height > 0) spans.push([r.top + window.scrollY, r.bottom + window.scrollY]);
    }
    spans.sort((a, b) => a[0] - b[0]);
    let worst = { gap: 0, at: 0 };
    let bottom = spans[0]?.[1] ?? 0;
    for (const [top, end] of spans) {
      if (top - bottom > worst.gap) worst = { gap: Math.round(top - bottom), at: Math.round(bottom) };
      bottom = Math.max(bottom, end);
    }
    const pageEnd = document.documentElement.scrollHeight;
    return pageEnd - bottom > worst.gap ? { gap: Math.round(pageEnd - bottom), at: Math.round(bottom) } : worst;
  });
}

/** Code blocks whose text runs past their box (cut, or behind a sideways scroll). */
function cutCode(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.scalar-app pre, .scalar-app pre code')]
      .filter((el) => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.clientWidth}/${el.scrollWidth}: ${el.textContent?.slice(0, 60)}`),
  );
}

async function openDocs(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByRole('heading', { name: 'Getting started' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('docs-loading')).toHaveCount(0);
}

for (const width of [1280, 390]) {
  test(`/docs at ${width}px: a loader first, getting started before the errors, examples at this origin, no cut code, no blank stretch`, async ({ page, baseURL }) => {
    test.setTimeout(180_000); // Scalar renders in the browser: ~5 s alone, 20 s and more on a busy machine
    await page.setViewportSize({ width, height: 844 });
    // The loader is in the page as served, before any script runs.
    const html = await (await page.request.get('/docs')).text();
    expect(html).toContain('data-testid="docs-loading"');
    expect(html).toContain('Loading the API reference');

    await openDocs(page, '/docs');
    // The introduction reads in order: getting started, authentication, then the errors.
    const tops = await Promise.all(
      ['Getting started', 'Authentication', 'Errors'].map((name) =>
        page.getByRole('heading', { name, exact: true }).first().evaluate((el) => el.getBoundingClientRect().top + window.scrollY),
      ),
    );
    expect(tops[0]).toBeLessThan(tops[1]!);
    expect(tops[1]).toBeLessThan(tops[2]!);
    await expect(page.getByRole('cell', { name: 'agents:execute' })).toBeAttached();

    // The examples name this page's origin, as its Server box does.
    await expect(page.getByText(`curl ${baseURL}/v1/agents \\`).first()).toBeVisible();
    await expect(page.getByText(`baseUrl: '${baseURL}'`).first()).toBeAttached();
    expect(await page.content()).not.toContain('localhost:3000');

    // One "Models" in the sidebar: the tag of GET /v1/models (the schemas' section is gone).
    const sidebar = page.locator('.scalar-app aside, .scalar-app nav').first();
    if (width >= 1000) await expect(sidebar.getByText('Models', { exact: true })).toHaveCount(1);

    const height = await renderAll(page);
    expect(await cutCode(page)).toEqual([]);
    const blank = await largestBlank(page);
    expect(blank.gap, `a blank stretch of ${blank.gap} px at y=${blank.at}`).toBeLessThan(width >= 1000 ? 500 : 700);
    // The page grows with the tags shown whole (the Evals tag took it from ~14,000 to ~14,450 px at 1280).
    expect(height).toBeLessThan(width >= 1000 ? 16_000 : 22_000);
    await expectNoHorizontalScroll(page);
    await shot(page, `docs-${width}`);
  });
}

test('/docs served from another origin shows that origin in its examples', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const other = baseURL!.replace('localhost', '127.0.0.1');
  await page.setViewportSize({ width: 1280, height: 844 });
  await openDocs(page, `${other}/docs`);
  await expect(page.getByText(`curl ${other}/v1/agents \\`).first()).toBeVisible();
  await expect(page.getByText(`baseUrl: '${other}'`).first()).toBeAttached();
  // An operation's example too (the first tag is open: API keys).
  await renderAll(page);
  await expect(page.getByText(`curl ${other}/v1/keys \\`).first()).toBeAttached();
  expect(await page.content()).not.toContain(baseURL!);
  await shot(page, 'docs-other-origin');
});
