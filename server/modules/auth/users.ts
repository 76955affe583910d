import { audit, auditAccount, changesOf, type AuditActor } from '../audit/record';
import type { RequestContext } from '../actor';
import { hash, verify } from '@node-rs/argon2';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { users, workspaceMembers, workspaces, type Plan } from '../../../db/schema';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { canonicalEmail } from './guards';
import { admitNewAccount, type SignUpProof } from './signup';

// Argon2id with OWASP's recommended minimum (19 MiB, 2 passes, 1 lane).
const ARGON2 = { algorithm: 2 /* Algorithm.Argon2id (a const enum) */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
// Verifying against this when the user is unknown keeps both answers equally slow.
let dummyHash: Promise<string> | undefined;

export const hashPassword = (password: string) => hash(password, ARGON2);
const checkPassword = (passwordHash: string, password: string) => verify(passwordHash, password).catch(() => false);

async function spendEqualTime(password: string): Promise<void> {
  dummyHash ??= hashPassword('timing-equaliser');
  await checkPassword(await dummyHash, password);
}

export interface Membership {
  userId: string;
  email: string;
  name: string | null;
  workspaceId: string;
}

async function membershipOf(db: Db, userId: string): Promise<Membership | null> {
  const [row] = await db
    .select({ userId: users.id, email: users.email, name: users.name, workspaceId: workspaceMembers.workspaceId })
    .from(users)
    .innerJoin(workspaceMembers, eq(workspaceMembers.userId, users.id))
    .where(eq(users.id, userId))
    .orderBy(workspaceMembers.createdAt)
    .limit(1);
  return row ?? null;
}

/** The user with this address in its canonical form (guards.ts), matched case-insensitively. */
export const findByEmail = (db: Db, email: string) =>
  db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = ${canonicalEmail(email)}`)
    .limit(1)
    .then((r) => r[0]);

/** A user and their own workspace (starter plan), in one transaction. The address is stored canonical. */
export async function createUser(
  db: Db,
  input: { email: string; password?: string; name?: string | null; githubId?: string },
  /**
   * Who made it, for the audit log: the new user from a request (sign-up), the admin CLI (the
   * system). `admit`: a sign-up, let in only if SIGNUP_MODE allows it (signup.ts), decided in
   * this transaction; the admin CLI and the tests' seeds pass none.
   */
  by?: { request?: RequestContext; system?: boolean; admit?: SignUpProof },
): Promise<Membership> {
  const email = canonicalEmail(input.email);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const userId = newId('usr');
  const workspaceId = newId('ws');
  try {
    await db.transaction(async (tx) => {
      if (by?.admit) await admitNewAccount(tx, by.admit);
      await tx.insert(users).values({ id: userId, email, name: input.name ?? null, passwordHash, githubId: input.githubId ?? null });
      const label = input.name?.trim() || email.split('@')[0];
      await tx.insert(workspaces).values({ id: workspaceId, name: `${label}'s workspace`, plan: 'starter' });
      await tx.insert(workspaceMembers).values({ workspaceId, userId, role: 'owner' });
      const actor: AuditActor = by?.system ? { kind: 'system', request: by.request } : { kind: 'user', userId, request: by?.request };
      await audit(tx, actor, { action: 'user.created', target: { type: 'user', id: userId }, workspaceId, environment: null, changes: { email: [null, email] } });
    });
  } catch (err) {
    // A refused sign-up says why, whether or not the address has an account (no oracle).
    if (err instanceof ApiError) throw err;
    // Only the admin CLI ever shows this; the sign-up form answers the same either way.
    if (await findByEmail(db, email)) throw new ApiError('email_taken', 'An account with this email already exists', { param: 'email' });
    throw err;
  }
  return { userId, email, name: input.name ?? null, workspaceId };
}

/**
 * Dashboard sign-up, when SIGNUP_MODE lets this address in (`invitation`: the link it came
 * with). The answer and its timing are the same whether or not the address was already
 * registered (no existence oracle); an existing account is left untouched.
 */
export async function signUp(db: Db, input: { email: string; password: string; name?: string; invitation?: string }, request?: RequestContext): Promise<void> {
  try {
    await createUser(db, input, { request, admit: { email: input.email, invitation: input.invitation } });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'email_taken')) throw err;
  }
}

export type CredentialCheck =
  | { ok: true; member: Membership }
  | { ok: false; blockedFor?: number };

/**
 * Checks an email + password. `spend(account)` is called before the password is verified,
 * with the matched user's id (or the canonical address when none matches): it spends the
 * attempt in the brute-force guard and answers how long to wait (0: go on).
 */
export async function verifyCredentials(
  db: Db,
  email: string,
  password: string,
  spend: (account: string) => Promise<number> = async () => 0,
): Promise<CredentialCheck & { account: string }> {
  const user = await findByEmail(db, email);
  const account = user?.id ?? `email:${canonicalEmail(email)}`;
  const blockedFor = await spend(account);
  if (blockedFor > 0) return { ok: false, blockedFor, account };
  if (!user?.passwordHash) {
    await spendEqualTime(password);
    return { ok: false, account };
  }
  if (!(await checkPassword(user.passwordHash, password))) return { ok: false, account };
  const member = await membershipOf(db, user.id);
  return member ? { ok: true, member, account } : { ok: false, account };
}

/** Sets a new password after checking the current one; false when the current one is wrong. */
export async function changePassword(db: Db, userId: string, current: string, next: string, request?: RequestContext): Promise<boolean> {
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user?.passwordHash) {
    await spendEqualTime(current);
    return false;
  }
  if (!(await checkPassword(user.passwordHash, current))) return false;
  const passwordHash = await hashPassword(next);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
    await auditAccount(tx, { kind: 'user', userId, request }, userId, { action: 'user.password_changed', target: { type: 'user', id: userId }, changes: { password: [null, 'changed'] } });
  });
  return true;
}

/** GitHub sign-in found an account with its email that it may not take over. */
export class AccountNotLinkedError extends Error {
  constructor() {
    super('This email belongs to an account that signs in another way');
    this.name = 'AccountNotLinkedError';
  }
}

/**
 * Signs in (or up) a GitHub user: matched by GitHub id, else created. An existing account with
 * the same address is never taken over: we never verified that its creator owned the address,
 * so whoever registered it first (and any keys they made) must not gain the GitHub user's
 * sign-in, nor the GitHub user theirs.
 */
export async function upsertGithubUser(db: Db, profile: { githubId: string; email: string; name: string | null }): Promise<Membership> {
  const [byGithub] = await db.select().from(users).where(eq(users.githubId, profile.githubId)).limit(1);
  if (byGithub) return (await membershipOf(db, byGithub.id))!;
  if (await findByEmail(db, profile.email)) throw new AccountNotLinkedError();
  // A new account: a sign-up like the form's (SIGNUP_MODE), its address verified by GitHub.
  return createUser(db, { email: profile.email, name: profile.name, githubId: profile.githubId }, { admit: { email: profile.email, verified: true } });
}

export async function findMembershipByEmail(db: Db, email: string): Promise<Membership | null> {
  const user = await findByEmail(db, email);
  return user ? membershipOf(db, user.id) : null;
}

/** The plan, with the enterprise plan's custom requests per minute and concurrency (null: the plan's own). */
export async function setWorkspacePlan(db: Db, workspaceId: string, plan: Plan, customRpm: number | null, customConcurrency: number | null = null, request?: RequestContext) {
  await db.transaction(async (tx) => {
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, workspaceId)).for('update');
    if (!before) return;
    await tx.update(workspaces).set({ plan, customRpm, customConcurrency }).where(eq(workspaces.id, workspaceId));
    const changes = changesOf(before, { ...before, plan, customRpm, customConcurrency }, ['plan', 'customRpm', 'customConcurrency']);
    await audit(tx, { kind: 'system', request }, { action: 'workspace.plan_changed', target: { type: 'workspace', id: workspaceId }, workspaceId, environment: null, changes });
  });
}

export async function getWorkspace(db: Db, workspaceId: string) {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  return row ?? null;
}
