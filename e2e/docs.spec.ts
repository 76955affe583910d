import { expect, test } from '@playwright/test';
import { expectNoHorizontalScroll, shot } from './helpers';

// /docs as a new reader meets it: a loader while Scalar renders (it was blank for ~5 s), then the
// introduction opening on "Getting started" and "Authentication", the error catalogue after them,
// and a page a phone can scroll (all sections open, it was ~76,000 px tall at 390 px).

for (const width of [1280, 390]) {
  test(`/docs at ${width}px: a loader first, then getting started before the error catalogue, and a page of sensible height`, async ({ page }) => {
    test.setTimeout(120_000); // Scalar renders in the browser: ~5 s alone, 20 s and more on a busy machine
    await page.setViewportSize({ width, height: 844 });
    // The loader is in the page as served, before any script runs.
    const html = await (await page.request.get('/docs')).text();
    expect(html).toContain('data-testid="docs-loading"');
    expect(html).toContain('Loading the API reference');

    await page.goto('/docs');
    const gettingStarted = page.getByRole('heading', { name: 'Getting started' });
    await expect(gettingStarted).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('docs-loading')).toHaveCount(0);

    // The introduction reads in order: getting started, authentication, then the errors.
    const tops = await Promise.all(
      ['Getting started', 'Authentication', 'Errors'].map((name) =>
        page.getByRole('heading', { name, exact: true }).first().evaluate((el) => el.getBoundingClientRect().top + window.scrollY),
      ),
    );
    expect(tops[0]).toBeLessThan(tops[1]!);
    expect(tops[1]).toBeLessThan(tops[2]!);
    await expect(page.getByText('curl http://localhost:3000/v1/agents -H "Authorization: Bearer $KEY"').first()).toBeAttached();
    await expect(page.getByRole('cell', { name: 'agents:execute' })).toBeAttached();
    await expectNoHorizontalScroll(page);

    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(25_000);
    await shot(page, `docs-${width}`);
  });
}
