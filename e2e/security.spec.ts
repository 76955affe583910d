import { expect, test } from '@playwright/test';
import { PASSWORD, signOut, signUp, uniqueEmail } from './helpers';

// The dashboard attacks of the hardening issue, replayed in a real browser against the
// production server.

test('a callbackUrl that a browser would read as another origin keeps the user on this site', async ({ page, baseURL }) => {
  const { email } = await signUp(page, 'redirect');
  // Signed in: the sign-in page redirects at once.
  for (const evil of ['/%09/evil.example', '/%5Cevil.example', '/.//evil.example', '//evil.example']) {
    await page.goto(`/signin?callbackUrl=${evil}`);
    await expect(page).toHaveURL(`${baseURL}/dashboard/keys`);
  }
  const newline = await page.request.get('/signin?callbackUrl=/%0a/evil.example', { maxRedirects: 0 });
  expect(newline.status()).toBeLessThan(500);

  // Signing in from a page that carries one.
  await signOut(page);
  await page.goto('/signin?callbackUrl=/%09/evil.example');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByTestId('signin-submit').click();
  await expect(page).toHaveURL(`${baseURL}/dashboard/keys`);
});

test('a signed-out session cookie no longer works, even replayed', async ({ page, context, request }) => {
  await signUp(page, 'replay');
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name.includes('session-token'));
  expect(session).toBeTruthy();
  const asCookie = `${session!.name}=${session!.value}`;
  const before = await request.get('/api/auth/session', { headers: { cookie: asCookie } });
  expect(((await before.json()) as { userId?: string }).userId).toBeTruthy();

  await signOut(page);
  const after = await request.get('/api/auth/session', { headers: { cookie: asCookie } });
  expect(((await after.json()) as { userId?: string }).userId).toBeUndefined();
});

test('one request cannot batch more than 10 sign-ups', async ({ request }) => {
  const emails = Array.from({ length: 11 }, () => uniqueEmail('batch'));
  const input = Object.fromEntries(emails.map((email, i) => [i, { json: { email, password: PASSWORD } }]));
  const path = `/api/trpc/${emails.map(() => 'account.signUp').join(',')}?batch=1`;
  const res = await request.post(path, { data: input });
  expect(res.status()).toBeGreaterThanOrEqual(400);
  // None of them exists: signing in as the first fails.
  const csrf = ((await (await request.get('/api/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
  const signIn = await request.post('/api/auth/callback/credentials?json=true', {
    form: { email: emails[0]!, password: PASSWORD, csrfToken: csrf, json: 'true' },
    maxRedirects: 0,
  });
  expect(signIn.headers()['location'] ?? (await signIn.text())).toContain('error=CredentialsSignin');
});

test('pages forbid framing and sniffing; dashboard answers are not cached', async ({ request }) => {
  const page = await request.get('/signin');
  expect(page.headers()['x-frame-options']).toBe('DENY');
  expect(page.headers()['x-content-type-options']).toBe('nosniff');
  expect(page.headers()['referrer-policy']).toBe('strict-origin-when-cross-origin');
  const session = await request.get('/api/auth/session');
  expect(session.headers()['cache-control']).toContain('no-store');
});
