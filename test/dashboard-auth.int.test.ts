// test: shared — on both databases, in a process and server it may share with other such files (docs/testing.md)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TRPCError } from '@trpc/server';
import { eq, sql } from 'drizzle-orm';
import type { JWT } from 'next-auth/jwt';
import { users } from '../db/schema';
import { startServer, type TestServer } from './harness';

// The dashboard's sign-up, sign-in and sessions against the real database and the real
// rate-limit store (memory on PGlite, the PostgreSQL store on PostgreSQL): the attacks that
// the hardening issue reproduced, each as a test.

let api: TestServer;
let mod: {
  authorize: (creds: Record<string, string>, req: { headers: Record<string, string> }) => Promise<{ id: string } | null>;
  callbacks: Required<import('next-auth').NextAuthOptions>['callbacks'];
  events: Required<import('next-auth').NextAuthOptions>['events'];
  caller: (ctx: { actor?: unknown; clientAddress?: string }) => ReturnType<typeof import('../server/api/trpc/router').appRouter.createCaller>;
  TOO_MANY: string;
};

const PASSWORD = 'correct horse battery staple';
let ip = 0;
/** A fresh client address per test, so tests do not share per-address counters. */
const nextAddress = () => `198.51.${100 + (++ip >> 8)}.${ip & 255}`;

before(async () => {
  api = await startServer();
  const { createAuthOptions } = await import('../server/modules/auth/options');
  const authOptions = createAuthOptions({ db: () => api.db, signIn: () => api.runtime.limits.auth.signIn });
  const { appRouter } = await import('../server/api/trpc/router');
  const { TOO_MANY_SIGN_IN_ATTEMPTS } = await import('../server/modules/auth/signin-errors');
  const provider = authOptions.providers[0] as unknown as { options: { authorize: typeof mod.authorize } };
  mod = {
    authorize: provider.options.authorize,
    callbacks: authOptions.callbacks!,
    events: authOptions.events!,
    caller: (ctx) => appRouter.createCaller({ requestId: 'req_test', db: api.db, actor: null, limits: api.runtime.limits, ...ctx } as never),
    TOO_MANY: TOO_MANY_SIGN_IN_ATTEMPTS,
  };
});
after(() => api?.close());

async function signUp(email: string, password = PASSWORD, clientAddress = nextAddress()) {
  return mod.caller({ clientAddress }).account.signUp({ email, password });
}

/** One sign-in try: 'ok', 'wrong' (the password was checked and refused) or 'blocked'. */
async function tryPassword(email: string, password: string, address: string): Promise<'ok' | 'wrong' | 'blocked'> {
  try {
    const user = await mod.authorize({ email, password }, { headers: { 'x-aas-client-address': address } });
    return user ? 'ok' : 'wrong';
  } catch (err) {
    assert.equal((err as Error).message, mod.TOO_MANY);
    return 'blocked';
  }
}

const countBy = <T extends string>(list: T[]) => list.reduce<Record<string, number>>((m, v) => ((m[v] = (m[v] ?? 0) + 1), m), {});

describe('sign-in guard', () => {
  it('checks exactly 10 passwords of 200 concurrent wrong tries from one address (the attempt is spent first)', async () => {
    const email = `race-${Date.now()}@example.test`;
    await signUp(email);
    const attacker = nextAddress();
    const results = await Promise.all(Array.from({ length: 200 }, () => tryPassword(email, 'wrong password!', attacker)));
    assert.deepEqual(countBy(results), { wrong: 10, blocked: 190 });
  });

  it('checks exactly 30 passwords of 200 concurrent wrong tries from 200 addresses (guessing from many addresses is bounded)', async () => {
    const email = `race-many-${Date.now()}@example.test`;
    await signUp(email);
    const results = await Promise.all(Array.from({ length: 200 }, () => tryPassword(email, 'wrong password!', nextAddress())));
    assert.deepEqual(countBy(results), { wrong: 30, blocked: 170 });
  });

  it('checks at most 30 of 100 concurrent tries from 100 addresses when one of them is right', async () => {
    const email = `race2-${Date.now()}@example.test`;
    await signUp(email);
    const tries = Array.from({ length: 100 }, (_, i) => (i === 24 ? PASSWORD : `wrong ${i}`));
    const results = await Promise.all(tries.map((p) => tryPassword(email, p, nextAddress())));
    assert.ok(results.filter((r) => r !== 'blocked').length <= 30);
  });

  it('ten wrong passwords from one address do not lock the owner out: the right one from another address signs in', async () => {
    const email = `targeted-${Date.now()}@example.test`;
    await signUp(email);
    const attacker = nextAddress();
    for (let i = 0; i < 10; i++) assert.equal(await tryPassword(email, `wrong ${i}`, attacker), 'wrong');
    for (let i = 0; i < 20; i++) assert.equal(await tryPassword(email, `wrong again ${i}`, attacker), 'blocked');
    assert.equal(await tryPassword(email, PASSWORD, nextAddress()), 'ok', 'the owner, from their own address');
    assert.equal(await tryPassword(email, PASSWORD, attacker), 'blocked', "the attacker's address stays stopped for this account");
  });

  it("guessing from many addresses stops new addresses, while the owner's known address signs in", async () => {
    const email = `distributed-${Date.now()}@example.test`;
    await signUp(email);
    const home = nextAddress();
    assert.equal(await tryPassword(email, PASSWORD, home), 'ok');
    for (let i = 0; i < 30; i++) assert.equal(await tryPassword(email, `wrong ${i}`, nextAddress()), 'wrong');
    assert.equal(await tryPassword(email, 'wrong once more', nextAddress()), 'blocked');
    assert.equal(await tryPassword(email, PASSWORD, nextAddress()), 'blocked', 'a first sign-in from a new address waits');
    assert.equal(await tryPassword(email, PASSWORD, home), 'ok', 'the address it signed in from before');
  });

  it('stops every spelling of the address: case, width and U+0130 (İ) get no password check', async () => {
    const email = `victim-${Date.now()}@example.test`;
    await signUp(email);
    const attacker = nextAddress();
    for (let i = 0; i < 10; i++) assert.equal(await tryPassword(email, `wrong ${i}`, attacker), 'wrong');
    for (const spelling of [email, email.toUpperCase(), email.replace('victim', 'vİctim'), email.replace('v', 'ｖ')]) {
      assert.notEqual(await tryPassword(spelling, PASSWORD, attacker), 'ok', spelling);
    }
    for (let i = 0; i < 20; i++) assert.equal(await tryPassword(email, `wrong ${i}`, nextAddress()), 'wrong');
    for (const spelling of [email, email.toUpperCase(), email.replace('victim', 'vİctim'), email.replace('v', 'ｖ')]) {
      assert.notEqual(await tryPassword(spelling, PASSWORD, nextAddress()), 'ok', spelling);
    }
    assert.equal(await tryPassword(email, PASSWORD, nextAddress()), 'blocked');
  });

  it('stops one address after 30 failures, whichever accounts it tries, while others still sign in', async () => {
    const attacker = nextAddress();
    const owner = `owner-${Date.now()}@example.test`;
    await signUp(owner);
    for (let i = 0; i < 30; i++) assert.equal(await tryPassword(`nobody${i}-${Date.now()}@example.test`, 'x', attacker), 'wrong');
    assert.equal(await tryPassword(owner, 'wrong', attacker), 'blocked');
    assert.equal(await tryPassword(owner, PASSWORD, nextAddress()), 'ok');
  });
});

describe('sign-up', () => {
  it('answers the same for a registered address and leaves that account untouched', async () => {
    const email = `taken-${Date.now()}@example.test`;
    assert.deepEqual(await signUp(email), { ok: true });
    assert.deepEqual(await signUp(email.toUpperCase(), 'attacker password 1'), { ok: true });
    assert.equal(await tryPassword(email, 'attacker password 1', nextAddress()), 'wrong');
    assert.equal(await tryPassword(email, PASSWORD, nextAddress()), 'ok');
    const rows = await api.db.select().from(users).where(sql`lower(${users.email}) = ${email}`);
    assert.equal(rows.length, 1);
  });

  it('allows 10 sign-ups per client address per hour', async () => {
    const address = nextAddress();
    const stamp = Date.now();
    for (let i = 0; i < 10; i++) await signUp(`many${i}-${stamp}@example.test`, PASSWORD, address);
    await assert.rejects(signUp(`many10-${stamp}@example.test`, PASSWORD, address), (err: unknown) => {
      assert.ok(err instanceof TRPCError);
      assert.equal((err.cause as { code?: string }).code, 'rate_limit_exceeded');
      return true;
    });
    const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from users where email like ${`many10-${stamp}%`}`);
    assert.equal(row!.n, 0);
    await signUp(`other-${stamp}@example.test`, PASSWORD, nextAddress());
  });
});

describe('sessions', () => {
  async function signedIn(email: string) {
    const user = (await mod.authorize({ email, password: PASSWORD }, { headers: { 'x-aas-client-address': nextAddress() } })) as {
      id: string;
      workspaceId: string;
    };
    const token = (await mod.callbacks.jwt!({ token: {} as JWT, user, account: { provider: 'credentials' } } as never)) as JWT;
    assert.ok(token.sid && token.userId);
    return { user, token };
  }
  const read = (token: JWT) => mod.callbacks.jwt!({ token } as never) as Promise<JWT>;

  it('the node edge reads the session cookie next-auth wrote (sessionOf): live, forged, ended, https names', async () => {
    const { createAuthOptions } = await import('../server/modules/auth/options');
    const { sessionOf } = await import('../server/modules/auth/session');
    const { encode } = await import('next-auth/jwt');
    const options = createAuthOptions({ db: () => api.db, signIn: () => undefined });
    const email = `edge-${Date.now()}@example.test`;
    await signUp(email);
    const a = await signedIn(email);
    const jwt = await encode({ token: a.token, secret: process.env.AUTH_SECRET! });
    const as = (cookie: string, extra: Record<string, string> = {}) => sessionOf(options, { host: 'localhost:3000', cookie, ...extra });
    const live = await as(`other=1; next-auth.session-token=${jwt}`);
    assert.deepEqual([live?.userId, live?.workspaceId, live?.sessionId], [a.user.id, a.user.workspaceId, a.token.sid]);
    assert.equal(await as(`next-auth.session-token=${jwt.slice(0, -4)}AAAA`), null, 'a forged token');
    assert.equal(await as(''), null, 'no cookie');
    // Behind an https proxy next-auth names the cookie __Secure-…; the plain name is then not read.
    assert.equal(await as(`next-auth.session-token=${jwt}`, { 'x-forwarded-proto': 'https' }), null);
    assert.equal((await as(`__Secure-next-auth.session-token=${jwt}`, { 'x-forwarded-proto': 'https' }))?.userId, a.user.id);
    await mod.events.signOut!({ token: a.token, session: undefined as never });
    assert.equal(await as(`next-auth.session-token=${jwt}`), null, 'a signed-out session');
  });

  it('a signed-out token is dead at once; other sessions live on', async () => {
    const email = `sess-${Date.now()}@example.test`;
    await signUp(email);
    const a = await signedIn(email);
    const b = await signedIn(email);
    assert.equal((await read(a.token)).userId, a.user.id);
    await mod.events.signOut!({ token: a.token, session: undefined as never });
    assert.deepEqual(await read(a.token), {});
    assert.equal((await read(b.token)).userId, b.user.id);
  });

  it('sign-out everywhere ends every session; a password change ends all but its own', async () => {
    const email = `sess2-${Date.now()}@example.test`;
    await signUp(email);
    const a = await signedIn(email);
    const b = await signedIn(email);
    const actor = (s: { user: { id: string; workspaceId: string }; token: JWT }) => ({
      kind: 'user',
      userId: s.user.id,
      workspaceId: s.user.workspaceId,
      sessionId: s.token.sid,
      environment: 'live',
      scopes: [],
    });
    const me = mod.caller({ actor: actor(a), clientAddress: nextAddress() });
    await assert.rejects(me.account.changePassword({ currentPassword: 'not it', newPassword: 'another good one' }));
    assert.deepEqual(await me.account.changePassword({ currentPassword: PASSWORD, newPassword: 'another good one' }), { ok: true });
    assert.equal((await read(a.token)).userId, a.user.id);
    assert.deepEqual(await read(b.token), {});
    assert.equal(await tryPassword(email, PASSWORD, nextAddress()), 'wrong');

    await me.account.signOutEverywhere();
    assert.deepEqual(await read(a.token), {});
  });
});

describe('GitHub sign-in', () => {
  it('never links onto an account registered with the same address', async () => {
    const email = `prereg-${Date.now()}@example.test`;
    await signUp(email);
    const verdict = await mod.callbacks.signIn!({
      user: { id: 'gh', email: email.toUpperCase() },
      account: { provider: 'github', providerAccountId: `gh-${Date.now()}`, type: 'oauth' },
    } as never);
    assert.equal(verdict, '/signin?error=OAuthAccountNotLinked');
    const { upsertGithubUser, AccountNotLinkedError } = await import('../server/modules/auth/users');
    await assert.rejects(upsertGithubUser(api.db, { githubId: 'gh-x', email, name: null }), AccountNotLinkedError);
    const [row] = await api.db.select().from(users).where(eq(users.email, email));
    assert.equal(row!.githubId, null);
    assert.ok(row!.passwordHash);
  });
});
