import { giveFirstVersions } from '../modules/agents/versions';
import { openDatabase, type Database } from '../../db/client';
import { DataDirLockedError } from '../../db/lock';
import { migrateDatabase } from '../../db/migrate';
import { describeCreation, type CreatedDatabase } from '../../db/pglite-init';
import { keepKeyLookups } from '../modules/keys/service';
import { openBus } from '../platform/notify';
import { createEngine } from '../modules/executions/engine';
import { registerRunParticipants } from '../modules/participants';
import { closeTraceExport, openTraceExport } from '../modules/traces/export';
import { Live } from '../modules/executions/live';
import { StreamGuard } from '../platform/streams/guard';
import { env } from '../platform/env.js';
import { openJobs } from '../platform/jobs';
import { declareQueues, startWorkers } from './workers';
import { createRateLimits } from '../modules/ratelimit';
import type { ProcessRuntime } from '../modules/runtime';
import { setNextHandle } from '../api/next-handle';
import type { SessionReader } from '../api/http/dashboard-api';
import { createAuthOptions } from '../modules/auth/options';
import { sessionOf } from '../modules/auth/session';
import { resolveAuthSecret, resolveSecretsKey, SECRETS_KEY_FILE } from '../platform/secrets';
import { installKeyring, Keyring } from '../platform/sealed';
import { log } from '../platform/log';
import { resealSecrets, type ResealReport } from '../modules/secrets/reseal';
import { checkSecretsKey, describeUnreadable, mismatch, plainlyWrong, type KeyCheck } from '../modules/secrets/check';
import { SILENT_PHASES, type StartupPhases } from './startup';
import { RequestUsage } from '../modules/usage/requests';
import { mailerFrom } from '../platform/mail';

// Start-up shared by the server, the worker, the tests and the admin CLI: secrets, database,
// migrations, rate limits, the job queue and (where this process runs them) the workers.

/** The next-auth secret for this process (next-auth, inside Next's bundle, reads process.env). */
export function provideAuthSecret(): void {
  const secret = resolveAuthSecret({
    authSecret: env.AUTH_SECRET,
    dataDir: env.DATA_DIR,
    embedded: !env.DATABASE_URL,
    production: env.NODE_ENV === 'production',
  });
  process.env.NEXTAUTH_SECRET = secret;
  process.env.AUTH_SECRET = secret;
}

/**
 * This process's keyring of SECRETS_KEY (docs/security.md, "Secrets at rest"), installed for the
 * modules that seal and open stored secrets. Throws, before anything opens, when production on
 * PostgreSQL has none, or a key is malformed.
 */
export function loadSecretsKeyring(): { keyring: Keyring; source: 'env' | 'file'; label: string } {
  const resolved = resolveSecretsKey({
    secretsKey: env.SECRETS_KEY,
    dataDir: env.DATA_DIR,
    embedded: !env.DATABASE_URL,
    production: env.NODE_ENV === 'production',
  });
  const file = `${env.DATA_DIR}/${SECRETS_KEY_FILE}`;
  const keyring = Keyring.parse(resolved.text, resolved.source === 'env' ? 'SECRETS_KEY' : file);
  if (resolved.generated && env.DATABASE_URL) {
    // Outside production on PostgreSQL: the key lives in this machine's data dir only.
    log.warn(
      { file: `${env.DATA_DIR}/${SECRETS_KEY_FILE}` },
      'SECRETS_KEY is not set: generated a key into the data dir; the secrets stored in PostgreSQL open only with it (set SECRETS_KEY, required in production)',
    );
  }
  installKeyring(keyring);
  const label = resolved.source === 'env' ? 'SECRETS_KEY' : `${file}${resolved.generated ? ', generated at this start' : ''}`;
  return { keyring, source: resolved.source, label };
}

/**
 * Opens the database (taking the data-dir lock in embedded mode) and applies pending migrations.
 * `prepared`: the server made a new data dir's database while its code loaded (main.ts).
 */
export async function openMigratedDatabase(phases: StartupPhases = SILENT_PHASES, prepared?: Promise<CreatedDatabase | undefined>): Promise<Database> {
  const database = await phases.run('database', describeOpened, async () => {
    const created = await prepared;
    const database = await openDatabase({
      databaseUrl: env.DATABASE_URL,
      dataDir: env.DATA_DIR,
      templateDir: env.PGLITE_TEMPLATE_DIR,
      max: env.DATABASE_POOL_SIZE,
      onCheckpointError: (err) => log.error({ err }, 'checkpoint of the embedded database failed; the next check tries again'),
    });
    if (created) database.created = created;
    return database;
  });
  try {
    await phases.run('migrations', 'migrations applied', () => migrateDatabase(database));
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

function describeOpened(database: Database): string {
  if (database.kind === 'postgres') return 'PostgreSQL connected';
  return database.created ? `embedded PGlite opened (its database ${describeCreation(database.created)})` : 'embedded PGlite opened';
}

/**
 * Opens everything this process holds, once. `workers` (default RUN_WORKERS) also starts the
 * job handlers here; a web process with RUN_WORKERS=false only sends jobs. `phases` logs how
 * long each step took (the server and the worker pass one); `prepared`, see openMigratedDatabase.
 */
export async function openRuntime(opts: { workers?: boolean; requests?: boolean; phases?: StartupPhases; prepared?: Promise<CreatedDatabase | undefined> } = {}): Promise<ProcessRuntime> {
  const workers = opts.workers ?? env.RUN_WORKERS;
  const phases = opts.phases ?? SILENT_PHASES;
  const { keyring, label } = loadSecretsKeyring();
  const database = await openMigratedDatabase(phases, opts.prepared);
  try {
    await phases.run('secrets', describeSealing, async () => {
      // First, whether this key opens what is stored (a sample): plainly another key stops the
      // start before anything is sealed under it; values it cannot open are named.
      const check = await checkSecretsKey(database.db, keyring);
      if (plainlyWrong(check, keyring)) throw mismatch(check, keyring, label);
      if (check.unreadable.length > 0) {
        log.error(
          { places: check.unreadable.map((e) => e.place), keyring: keyring.ids },
          `${check.unreadable.length} of the ${check.sealed} sampled stored secrets cannot be opened by this SECRETS_KEY (${label}): ${describeUnreadable(check.unreadable)}. What uses them fails saying so; add the key they name to SECRETS_KEY (docs/security.md, "A wrong key")`,
        );
      }
      // Values stored before secrets were sealed (or by an older process during an upgrade).
      return { ...(await resealSecrets(database.db, keyring, 'plaintext')), check };
    });
    // Agents made before versions get their version 1 (docs/versions.md).
    await phases.run('agentVersions', (n: number) => (n > 0 ? `version 1 given to ${n} agents made before versions` : 'every agent has its versions'), () => giveFirstVersions(database.db));
    const limits = createRateLimits({
      database,
      redisUrl: env.REDIS_URL,
      anonPerMinute: env.RATE_LIMIT_ANON_PER_MINUTE,
      signUpsPerHour: env.RATE_LIMIT_SIGNUPS_PER_HOUR,
    });
    await phases.run('rateLimits', `rate-limit store ready (${limits.store})`, () => limits.ready());
    const { bus, jobs } = await phases.run('jobs', 'job queue started', async () => {
      const bus = await openBus(database);
      // The embedded database's one process keeps key lookups (keys/lookup-cache.ts).
      if (database.kind === 'pglite') keepKeyLookups(database.db, bus);
      const jobs = await openJobs(database, { workers });
      await declareQueues(jobs);
      return { bus, jobs };
    });
    const live = new Live(database.db, bus);
    // The embedded database has one process (db/lock.ts): its streams are counted in memory.
    const streams = new StreamGuard(database.db, { leases: database.kind === 'pglite' ? 'process' : 'database' });
    streams.start();
    const usage = new RequestUsage(database.db, env.USAGE_ANALYTICS);
    usage.start();
    // The run's participants (budgets, usage records, the outbox) plug into the engine first.
    registerRunParticipants();
    // OTLP export of their traces, when an endpoint is set (the SDK is loaded only then).
    await openTraceExport();
    // The engine reads the pool at each start: the workers (and their pool) start after it.
    const engine = createEngine({ db: database.db, live, pool: () => runtime.executions });
    const mail = mailerFrom(env);
    // Where invitations are mailed: the host alone (the URL holds the credentials).
    if (mail && env.SMTP_URL) log.info({ smtpHost: new URL(env.SMTP_URL).host }, 'invitation mail on');
    const runtime: ProcessRuntime = { database, limits, jobs, bus, live, streams, usage, engine, workers, requests: opts.requests ?? true, mail };
    // What Next's pages and next-auth's route may use (never the engine): api/next-handle.ts.
    setNextHandle({ database, authGuards: limits.auth });
    if (workers) runtime.stopWorkers = await phases.run('workers', 'workers started', () => startWorkers(runtime));
    return runtime;
  } catch (err) {
    setNextHandle(undefined);
    await database.close();
    throw err;
  }
}

function describeSealing(r: ResealReport & { check: KeyCheck }): string {
  const done = r.rows + r.fingerprints > 0 ? `stored secrets sealed (${r.rows} rows, ${r.fingerprints} idempotency fingerprints keyed)` : 'stored secrets are sealed';
  const opened = r.check.sealed > 0 ? `; ${r.check.opened} of ${r.check.sealed} sampled values open` : '';
  return r.unreadable.length + r.check.unreadable.length > 0 ? `${done}${opened}; some values this SECRETS_KEY cannot open (logged above)` : `${done}${opened}`;
}

/** Stops the workers (letting running jobs finish), then closes the stores and the database. */
export async function closeRuntime(runtime: ProcessRuntime): Promise<void> {
  await runtime.stopWorkers?.();
  // The spans still queued for the collector go (or are given up) before the process stops.
  await closeTraceExport();
  // What this process counted of API requests, before the database closes.
  await runtime.usage.stop();
  await runtime.jobs.stop();
  await runtime.streams.stop();
  runtime.live.close();
  await runtime.bus.close();
  await runtime.limits.close();
  runtime.mail?.close();
  await runtime.database.close();
  setNextHandle(undefined);
}

/** The signed-in user's session of a request the node edge serves (the dashboard's API), over this process's database. */
export function sessionReader(runtime: ProcessRuntime): SessionReader {
  const options = createAuthOptions({ db: () => runtime.database.db, signIn: () => runtime.limits.auth.signIn });
  return (headers) => sessionOf(options, headers);
}

/** A plain sentence for the error people will meet most: the data dir is in use. */
export function describeStartupError(err: unknown): string {
  if (err instanceof DataDirLockedError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

