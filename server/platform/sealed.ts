import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

// Secrets at rest (docs/security.md, "Secrets at rest"). What the service must use again in plain
// text — webhook and tool signing secrets, MCP header values — is stored sealed: AES-256-GCM under
// a key of the keyring, as `enc:v1:<key id>:<base64url(iv | ciphertext | tag)>`. The keyring is
// SECRETS_KEY: comma-separated base64 keys of 32 bytes; the first seals, every one opens, and each
// value names its key by an id derived from the key, so a key can be replaced while processes run
// (`npm run admin -- rotate-secrets-key`). The additional authenticated data binds a value to its
// place (the caller names the column and the row): a value copied into another row does not open.
// The same keyring keys the idempotency fingerprints (HMAC-SHA-256), so a dump of the database
// tells nothing of the request bodies either.

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** 32 bytes in base64 or base64url: 43 characters, and the padding `=` or not. */
const KEY_TEXT = /^[A-Za-z0-9+/_-]{43}=?$/;
/** A keyed fingerprint: `<key id>:<hex HMAC>`. */
const KEYED = /^([A-Za-z0-9_-]{8}):([0-9a-f]{64})$/;

/** SECRETS_KEY (or the data dir's key file) is not a list of base64 keys of 32 bytes. */
export class SecretsKeyError extends Error {
  override name = 'SecretsKeyError';
}

/**
 * A stored value this process cannot open: sealed under a key it does not hold (SECRETS_KEY lacks
 * it), or altered, or moved from another row. The message names the place and the key id, never
 * the value.
 */
export class UnreadableSecret extends Error {
  override name = 'UnreadableSecret';
  constructor(
    readonly place: string,
    readonly keyId: string | null,
    /** Why, in words safe to show its owner (a key id reveals nothing of the key). */
    readonly reason: string,
  ) {
    super(`The stored secret ${place} cannot be opened: ${reason}`);
  }
}

interface Key {
  id: string;
  /** The AES-256-GCM key of sealed values (HKDF of the key, so the key itself is used for nothing else). */
  seal: Buffer;
  /** The HMAC key of idempotency fingerprints. */
  fingerprint: Buffer;
}

/** The id a value names its key by: 8 characters of a hash of the key (it reveals nothing of it). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('aas secrets key id\0').update(key).digest('base64url').slice(0, 8);
}

const derive = (key: Buffer, info: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32));

/** A new key as SECRETS_KEY takes it: base64 of 32 random bytes. */
export function newSecretsKey(): string {
  return randomBytes(32).toString('base64');
}

export class Keyring {
  private readonly keys: Map<string, Key>;
  private readonly first: Key;

  constructor(raw: Buffer[]) {
    if (raw.length === 0) throw new SecretsKeyError('no key');
    this.keys = new Map();
    for (const key of raw) {
      if (key.length !== 32) throw new SecretsKeyError('a key is not 32 bytes');
      const id = keyId(key);
      if (this.keys.has(id)) throw new SecretsKeyError(`the key ${id} is listed twice`);
      this.keys.set(id, { id, seal: derive(key, 'aas sealed secrets v1'), fingerprint: derive(key, 'aas idempotency fingerprint v1') });
    }
    this.first = this.keys.get(keyId(raw[0]!))!;
  }

  /** Parses `key[,key…]`; `source` names where the text came from in the error. */
  static parse(text: string, source = 'SECRETS_KEY'): Keyring {
    const entries = text.split(',').map((s) => s.trim());
    const keys = entries.map((entry, i) => {
      if (!KEY_TEXT.test(entry)) {
        throw new SecretsKeyError(
          `${source}: entry ${i + 1} is not a base64 key of 32 bytes (keys are comma-separated; make one with \`openssl rand -base64 32\` or \`npm run admin -- generate-secrets-key\`)`,
        );
      }
      // Node's base64 decoder reads the URL-safe alphabet too.
      return Buffer.from(entry, 'base64');
    });
    return new Keyring(keys);
  }

  /** The id of the key that seals. */
  get currentId(): string {
    return this.first.id;
  }

  /** Every key id, the sealing one first. */
  get ids(): string[] {
    return [...this.keys.keys()];
  }

  has(id: string): boolean {
    return this.keys.has(id);
  }

  /** `plaintext` sealed under the first key, bound to `place`. */
  seal(place: string, plaintext: string): string {
    const key = this.first;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.seal, iv);
    cipher.setAAD(aad(key.id, place));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${PREFIX}${key.id}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /**
   * The plaintext of a value sealed for `place`. A value that is not sealed (no `enc:` prefix:
   * written before secrets were sealed, or by a process of an older version during an upgrade)
   * is the plaintext itself; the start-up seals those (docs/security.md).
   */
  open(place: string, stored: string): string {
    if (!isSealed(stored)) return stored;
    const id = sealedKeyId(stored);
    const key = id === null ? undefined : this.keys.get(id);
    if (!key) {
      throw new UnreadableSecret(place, id, id === null ? 'it is not a sealed value of this version' : `it is sealed under the key ${id}, which SECRETS_KEY does not hold (it holds ${this.ids.join(', ')})`);
    }
    const raw = Buffer.from(stored.slice(PREFIX.length + id!.length + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new UnreadableSecret(place, id, 'it is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.seal, raw.subarray(0, IV_BYTES));
      decipher.setAAD(aad(key.id, place));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new UnreadableSecret(place, id, 'it does not authenticate (altered, or sealed for another row)');
    }
  }

  /** Whether `stored` is sealed under the first key (nothing to do for a rotation). */
  isCurrent(stored: string): boolean {
    return sealedKeyId(stored) === this.first.id;
  }

  /** `<key id>:<hex HMAC-SHA-256>` of `digest` under the first key. */
  fingerprint(digest: string): string {
    return `${this.first.id}:${createHmac('sha256', this.first.fingerprint).update(digest).digest('hex')}`;
  }

  /**
   * Whether a stored fingerprint is `digest`'s: true or false under a key of the keyring, null
   * when it is not a keyed fingerprint or its key is not held (the caller decides).
   */
  matchesFingerprint(stored: string, digest: string): boolean | null {
    const m = KEYED.exec(stored);
    const key = m && this.keys.get(m[1]!);
    if (!key) return null;
    const expected = createHmac('sha256', key.fingerprint).update(digest).digest();
    return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
  }
}

const aad = (id: string, place: string) => Buffer.from(`aas sealed v1\0${id}\0${place}`, 'utf8');

/** Whether a stored value is sealed (else it is a plaintext from before, or an older process). */
export function isSealed(stored: string): boolean {
  return stored.startsWith('enc:');
}

/** The key id a sealed value names, or null (plaintext, or not of this version). */
export function sealedKeyId(stored: string): string | null {
  if (!stored.startsWith(PREFIX)) return null;
  const end = stored.indexOf(':', PREFIX.length);
  return end === PREFIX.length + 8 ? stored.slice(PREFIX.length, end) : null;
}

/** The prefix of the values sealed under a key (for the SQL that finds the others). */
export const sealedPrefix = (id: string) => `${PREFIX}${id}:`;

// The keyring of this process, installed once at start-up (server/processes/boot.ts). Kept on
// globalThis: Next evaluates this module again in its own chunks (the dashboard's procedures run
// there), and a module-level variable would be empty in those copies (docs/platform-notes.md,
// "Next evaluates our modules several times in one process").
const KEYRING = Symbol.for('agent-service.secrets-keyring');
const registry = globalThis as unknown as Record<symbol, Keyring | undefined>;

export function installKeyring(keyring: Keyring | undefined): void {
  registry[KEYRING] = keyring;
}

/** This process's keyring; it is installed before the database opens, so only a caller outside a process can miss it. */
export function secretsKeyring(): Keyring {
  const installed = registry[KEYRING];
  if (!installed) throw new Error('The secrets keyring is not loaded: open the process runtime first (server/processes/boot.ts)');
  return installed;
}
