import { hash, verify } from '@node-rs/argon2';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { users, workspaceMembers, workspaces, type Plan } from '../../db/schema';
import { ApiError } from '../errors';
import { newId } from '../ids';

// Argon2id with OWASP's recommended minimum (19 MiB, 2 passes, 1 lane).
const ARGON2 = { algorithm: 2 /* Algorithm.Argon2id (a const enum) */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
// Verifying against this when the user is unknown keeps both answers equally slow.
let dummyHash: Promise<string> | undefined;

export const hashPassword = (password: string) => hash(password, ARGON2);

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

const findByEmail = (db: Db, email: string) =>
  db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1).then((r) => r[0]);

/** A user and their own workspace (starter plan), in one transaction. */
export async function createUser(
  db: Db,
  input: { email: string; password?: string; name?: string | null; githubId?: string },
): Promise<Membership> {
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const userId = newId('usr');
  const workspaceId = newId('ws');
  try {
    await db.transaction(async (tx) => {
      await tx.insert(users).values({
        id: userId,
        email: input.email,
        name: input.name ?? null,
        passwordHash,
        githubId: input.githubId ?? null,
      });
      const label = input.name?.trim() || input.email.split('@')[0];
      await tx.insert(workspaces).values({ id: workspaceId, name: `${label}'s workspace`, plan: 'starter' });
      await tx.insert(workspaceMembers).values({ workspaceId, userId, role: 'owner' });
    });
  } catch (err) {
    if (await findByEmail(db, input.email)) {
      throw new ApiError(400, 'email_taken', 'An account with this email already exists', { param: 'email' });
    }
    throw err;
  }
  return { userId, email: input.email, name: input.name ?? null, workspaceId };
}

/** The member for a correct email + password, or null (same timing either way). */
export async function verifyCredentials(db: Db, email: string, password: string): Promise<Membership | null> {
  const user = await findByEmail(db, email);
  if (!user?.passwordHash) {
    dummyHash ??= hashPassword('timing-equaliser');
    await verify(await dummyHash, password).catch(() => false);
    return null;
  }
  if (!(await verify(user.passwordHash, password).catch(() => false))) return null;
  return membershipOf(db, user.id);
}

/** Signs in (or up) a GitHub user: matched by GitHub id, then by verified email. */
export async function upsertGithubUser(
  db: Db,
  profile: { githubId: string; email: string; name: string | null },
): Promise<Membership> {
  const [byGithub] = await db.select().from(users).where(eq(users.githubId, profile.githubId)).limit(1);
  if (byGithub) return (await membershipOf(db, byGithub.id))!;
  const byEmail = await findByEmail(db, profile.email);
  if (byEmail) {
    await db.update(users).set({ githubId: profile.githubId }).where(eq(users.id, byEmail.id));
    return (await membershipOf(db, byEmail.id))!;
  }
  return createUser(db, { email: profile.email, name: profile.name, githubId: profile.githubId });
}

export async function findMembershipByEmail(db: Db, email: string): Promise<Membership | null> {
  const user = await findByEmail(db, email);
  return user ? membershipOf(db, user.id) : null;
}

export async function setWorkspacePlan(db: Db, workspaceId: string, plan: Plan, customRpm: number | null) {
  await db.update(workspaces).set({ plan, customRpm }).where(eq(workspaces.id, workspaceId));
}

export async function getWorkspace(db: Db, workspaceId: string) {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  return row ?? null;
}
