// The admin CLI's secrets-key commands (docs/security.md, "Secrets at rest"; README, "Admin CLI"):
//
//   generate-secrets-key  prints a new key for SECRETS_KEY (base64 of 32 random bytes).
//   rotate-secrets-key    seals every stored secret that is not under the keyring's first key
//                         again under it.
//
// With SECRETS_KEY set, the operator owns the list: the new key is added second everywhere, then
// made first everywhere, then this runs (while the servers run: every write is a conditional
// update), then the old key is dropped. Without it (embedded mode: the key lives in the data
// dir), this generates the new key itself, with the server stopped (it holds the data dir).
import fs from 'node:fs';
import path from 'node:path';
import { env } from '../platform/env.js';
import { installKeyring, Keyring, newSecretsKey } from '../platform/sealed';
import { SECRETS_KEY_FILE, writeSecretsKeyFile } from '../platform/secrets';
import { loadSecretsKeyring, openMigratedDatabase } from './boot';
import { resealSecrets, unsealedLeft } from '../modules/secrets/reseal';

/** Places named in the command's answer; the rest are counted (each is logged). */
const MAX_NAMED = 20;

export function generateSecretsKey(): string {
  return newSecretsKey();
}

export async function rotateSecretsKey(): Promise<string> {
  // Outside production a key could be generated into this data dir: it would exist here only.
  if (env.DATABASE_URL && !env.SECRETS_KEY && env.NODE_ENV !== 'production') {
    throw new Error(
      `rotate-secrets-key with DATABASE_URL needs SECRETS_KEY, the keys every process shares (the key in use now is in ${path.join(env.DATA_DIR, SECRETS_KEY_FILE)} if a process generated one): set the new key second, then first, in every process, and run this again (docs/security.md, "Secrets at rest")`,
    );
  }
  const loaded = loadSecretsKeyring();
  // Embedded: the data dir is ours alone from here on (the server holds it while it runs).
  const database = await openMigratedDatabase();
  try {
    let keyring = loaded.keyring;
    const lines: string[] = [];
    if (loaded.source === 'file') {
      // The new key goes first, the old ones stay until nothing is sealed under them.
      const previous = keyring.ids;
      const text = [newSecretsKey(), ...currentKeys()].join(',');
      writeSecretsKeyFile(env.DATA_DIR, text);
      keyring = Keyring.parse(text, 'the data dir key file');
      installKeyring(keyring);
      lines.push(`generated the key ${keyring.currentId} into ${path.join(env.DATA_DIR, SECRETS_KEY_FILE)} (it held ${previous.join(', ')})`);
    }
    const report = await resealSecrets(database.db, keyring, 'rotate');
    const left = await unsealedLeft(database.db, keyring);
    lines.push(`sealed ${report.rows} rows again under the key ${keyring.currentId}`);
    // What cannot be opened is named, place by place (never a value), and left as it is: a new
    // value (a rotation of that secret, the header or URL given again) replaces it.
    const unreadable = report.unreadable.map((e) => `${e.place} (${e.reason})`);
    if (unreadable.length > 0) {
      const shown = unreadable.slice(0, MAX_NAMED);
      const more = unreadable.length > shown.length ? `; and ${unreadable.length - shown.length} more (logged above)` : '';
      lines.push(`${unreadable.length} values cannot be opened by this keyring (${keyring.ids.join(', ')}) and are left as they are: ${shown.join('; ')}${more}`);
    }
    const rows = left.webhooks + left.agents;
    const unreadableRows = new Set(report.unreadable.map((e) => e.place.split(':')[1])).size;
    if (rows > unreadableRows) {
      lines.push(`${rows} rows are still not under ${keyring.currentId} (${left.webhooks} webhooks, ${left.agents} agents): is the new key first in every process? Run this again`);
    }
    if (rows > 0 || unreadable.length > 0) throw new Error(lines.join('\n'));
    if (loaded.source === 'file') {
      // Nothing is sealed under the older keys any more; the one just replaced stays second for a
      // day's idempotency records (their fingerprints are keyed with it), the rest go.
      writeSecretsKeyFile(env.DATA_DIR, [...currentKeys()].slice(0, 2).join(','));
      lines.push(`the key file now holds ${keyring.currentId} and the previous key (for the idempotency records of the last 24 h; the next rotation drops it)`);
    } else {
      lines.push(`nothing is left under the other keys: they can leave SECRETS_KEY${left.fingerprints > 0 ? ` once the ${left.fingerprints} idempotency records keyed with them expire (24 h)` : ''}`);
    }
    return lines.join('\n');
  } finally {
    await database.close();
  }
}

/** The keys of the data dir's key file, as written (the keyring holds derived keys only). */
function currentKeys(): string[] {
  return fs
    .readFileSync(path.join(env.DATA_DIR, SECRETS_KEY_FILE), 'utf8')
    .split(',')
    .map((k) => k.trim());
}
