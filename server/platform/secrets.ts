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
