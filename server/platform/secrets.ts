import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The next-auth secret: AUTH_SECRET when set; otherwise, outside production or in embedded
 * mode, one generated once into DATA_DIR (mode 0600) so a laptop needs no configuration.
 * Several web processes on PostgreSQL must share one, so production there requires it.
 */
export function resolveAuthSecret(opts: {
  authSecret?: string;
  dataDir: string;
  embedded: boolean;
  production: boolean;
}): string {
  if (opts.authSecret) return opts.authSecret;
  if (!opts.embedded && opts.production) {
    throw new Error('AUTH_SECRET is required in production with DATABASE_URL (every web process must share it)');
  }
  const file = path.join(opts.dataDir, 'auth-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    const secret = randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}

/** The file that holds the generated secrets key (or keys) in the data dir. */
export const SECRETS_KEY_FILE = 'secrets-key';

/**
 * The keyring text of SECRETS_KEY (docs/security.md, "Secrets at rest"): the variable when set;
 * otherwise, in embedded mode or outside production, the data dir's `secrets-key`, generated once
 * (mode 0600). With DATABASE_URL in production it is required: every process must hold the same
 * keys, and a key kept in one machine's data dir would leave the others unable to open a value.
 */
export function resolveSecretsKey(opts: {
  secretsKey?: string;
  dataDir: string;
  embedded: boolean;
  production: boolean;
}): { text: string; source: 'env' | 'file'; generated: boolean } {
  if (opts.secretsKey) return { text: opts.secretsKey, source: 'env', generated: false };
  if (!opts.embedded && opts.production) {
    throw new Error(
      'SECRETS_KEY is required in production with DATABASE_URL (every process must share it): set it to a key made with `openssl rand -base64 32` or `npm run admin -- generate-secrets-key` (docs/security.md, "Secrets at rest")',
    );
  }
  const file = path.join(opts.dataDir, SECRETS_KEY_FILE);
  const read = () => fs.readFileSync(file, 'utf8').trim();
  try {
    return { text: read(), source: 'file', generated: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  // Written whole under another name, then linked into place: a process starting at the same
  // moment reads either no file or the complete key, and the first link wins.
  const draft = `${file}.${process.pid}.new`;
  fs.writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(draft, file);
    return { text: read(), source: 'file', generated: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { text: read(), source: 'file', generated: false };
    throw err;
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/** Replaces the data dir's key file at once (a new file renamed over it, mode 0600). */
export function writeSecretsKeyFile(dataDir: string, text: string): void {
  const file = path.join(dataDir, SECRETS_KEY_FILE);
  const next = `${file}.${process.pid}.new`;
  fs.writeFileSync(next, `${text}\n`, { mode: 0o600 });
  fs.renameSync(next, file);
}
