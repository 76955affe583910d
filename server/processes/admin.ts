// Headless set-up (README, "Admin CLI"):
//   npm run admin -- create-user --email E --password P
//   npm run admin -- set-plan --email E --plan starter|professional|enterprise [--rpm N] [--concurrency N]
//   npm run admin -- create-key --email E --env live|test [--scopes a,b|all] [--name N]
//   npm run admin -- invite --by E|--workspace W --email E --role owner|admin|developer|viewer
//   npm run admin -- generate-secrets-key
//   npm run admin -- rotate-secrets-key
// Applies pending migrations first. In embedded mode it needs the data dir to itself: while
// the server holds it, it says so and exits 1 without writing anything.
// First: on an unsupported Node this says so and exits, before any dependency loads.
import './node-version.js';
import { parseArgs } from 'node:util';
import { DataDirLockedError } from '../../db/lock';
import { ENVIRONMENTS, PLANS, type Environment, type Plan } from '../../db/schema';
import { openMigratedDatabase } from './boot';
import { generateSecretsKey, rotateSecretsKey } from './secrets-key';
import { createUser, findMembershipByEmail, getWorkspace, setWorkspacePlan } from '../modules/auth/users';
import { dashboardUrl, mailInvitation } from '../modules/auth/invitation-mail';
import { invite } from '../modules/auth/invitations';
import { mailerFrom } from '../platform/mail';
import { env } from '../platform/env.js';
import { MEMBER_ROLES, type MemberRole } from '../../db/schema/values';
import { ApiError } from '../platform/errors';
import { createKey } from '../modules/keys/service';
import { DEFAULT_SCOPES, isScope, SCOPES, type Scope } from '../modules/vocabulary/scopes';

const USAGE = `Usage:
  npm run admin -- create-user --email E --password P
  npm run admin -- set-plan --email E --plan starter|professional|enterprise [--rpm N] [--concurrency N]
  npm run admin -- create-key --email E --env live|test [--scopes a,b|all] [--name N]
  npm run admin -- invite --by E|--workspace W --email E --role owner|admin|developer|viewer
  npm run admin -- generate-secrets-key
  npm run admin -- rotate-secrets-key`;

class UsageError extends Error {}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`--${flag} is required`);
  return value;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of: ${allowed.join(', ')}`);
  return value as T;
}

function parseScopes(value: string | undefined): Scope[] {
  if (value === undefined) return DEFAULT_SCOPES;
  if (value === 'all') return [...SCOPES];
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((s) => !isScope(s));
  if (unknown.length > 0 || list.length === 0) {
    throw new UsageError(`--scopes: unknown scope ${unknown.join(', ') || '(none)'}; known: ${SCOPES.join(', ')}, or all`);
  }
  return list as Scope[];
}

async function run(argv: string[]): Promise<string> {
  const [command, ...rest] = argv;
  if (command === 'generate-secrets-key' || command === 'rotate-secrets-key') {
    parseArgs({ args: rest, options: {}, strict: true });
    return command === 'generate-secrets-key' ? generateSecretsKey() : rotateSecretsKey();
  }
  if (!command || !['create-user', 'set-plan', 'create-key', 'invite'].includes(command)) {
    throw new UsageError(command ? `unknown command '${command}'` : 'missing command');
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      rpm: { type: 'string' },
      concurrency: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      workspace: { type: 'string' },
      by: { type: 'string' },
      role: { type: 'string' },
    },
    strict: true,
  });
  // Validate everything before touching the database.
  const email = need(values.email, 'email');
  let action: (db: Awaited<ReturnType<typeof openMigratedDatabase>>['db']) => Promise<string>;
  if (command === 'create-user') {
    const password = need(values.password, 'password');
    if (password.length < 8) throw new UsageError('--password must have at least 8 characters');
    action = async (db) => {
      const m = await createUser(db, { email, password }, { system: true, request: CLI_REQUEST });
      return `created user ${m.userId} with workspace ${m.workspaceId} (starter plan)`;
    };
  } else if (command === 'set-plan') {
    const plan = oneOf<Plan>(need(values.plan, 'plan'), PLANS, 'plan');
    let rpm: number | null = null;
    if (values.rpm !== undefined) {
      if (plan !== 'enterprise') throw new UsageError('--rpm applies to the enterprise plan only');
      rpm = Number(values.rpm);
      if (!Number.isInteger(rpm) || rpm < 1) throw new UsageError('--rpm must be a positive whole number');
    }
    let concurrency: number | null = null;
    if (values.concurrency !== undefined) {
      if (plan !== 'enterprise') throw new UsageError('--concurrency applies to the enterprise plan only');
      concurrency = Number(values.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 100_000) throw new UsageError('--concurrency must be a whole number from 1 to 100000');
    }
    action = async (db) => {
      const m = await member(db, email);
      await setWorkspacePlan(db, m.workspaceId, plan, rpm, concurrency, CLI_REQUEST);
      const custom = [rpm ? `${rpm} requests/minute` : '', concurrency ? `${concurrency} executions at once` : ''].filter(Boolean).join(', ');
      return `workspace ${m.workspaceId} is now on the ${plan} plan${custom ? ` (${custom})` : ''}`;
    };
  } else if (command === 'invite') {
    // The workspace: by its id, or the one a member's email opens (as the other commands find it).
    if (!values.workspace === !values.by) throw new UsageError('give one of --by <a member’s email> or --workspace <id>');
    const role = oneOf<MemberRole>(need(values.role, 'role'), MEMBER_ROLES, 'role');
    action = async (db) => {
      const workspaceId = values.workspace ?? (await member(db, values.by!)).workspaceId;
      if (!(await getWorkspace(db, workspaceId))) throw new Error(`no workspace ${workspaceId}`);
      const made = await invite(db, { kind: 'system', workspaceId, request: CLI_REQUEST }, { email, role });
      // Mailed too when SMTP_URL is set (said on stderr); the link alone on stdout, for scripts:
      // the dashboard's address when NEXTAUTH_URL says it.
      const mailer = mailerFrom(env);
      const mailed = await mailInvitation(db, mailer, made, { workspaceId });
      mailer?.close();
      if (mailed !== 'off') process.stderr.write(mailed === 'sent' ? `mailed to ${made.email}\n` : `the mail to ${made.email} was not sent (see the log): share the link\n`);
      return dashboardUrl(made.path);
    };
  } else {
    const environment = oneOf<Environment>(need(values.env, 'env'), ENVIRONMENTS, 'env');
    const scopes = parseScopes(values.scopes);
    const name = values.name ?? 'Admin CLI key';
    if (name.length < 1 || name.length > 100) throw new UsageError('--name must have 1 to 100 characters');
    action = async (db) => {
      const m = await member(db, email);
      const created = await createKey(
        db,
        { kind: 'user', userId: m.userId, role: 'owner', workspaceId: m.workspaceId, environment, scopes: [...SCOPES], request: CLI_REQUEST },
        { name, environment, scopes },
      );
      return created.key; // the secret alone on stdout, for scripts
    };
  }

  const database = await openMigratedDatabase();
  try {
    return await action(database.db);
  } finally {
    await database.close();
  }
}

/** The admin CLI as the audit log records it (docs/audit.md): no address, its own agent name. */
const CLI_REQUEST = { ip: null, userAgent: 'admin-cli', requestId: null };

async function member(db: Parameters<typeof findMembershipByEmail>[0], email: string) {
  const m = await findMembershipByEmail(db, email);
  if (!m) throw new Error(`no user with email ${email}`);
  return m;
}

// `node server/processes/launch.js admin <command> …` (`npm run admin -- <command> …`): the
// command starts after the launcher's entry name.
run(process.argv.slice(process.argv[2] === 'admin' ? 3 : 2))
  .then((out) => {
    process.stdout.write(`${out}\n`);
  })
  .catch((err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof DataDirLockedError || err instanceof ApiError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  });
