import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Environment } from '../../../db/schema';

// A key: `svc_<env>_sk_<secret>`, where <secret> is 32 base62 characters of CSPRNG output
// (≈190 bits) followed by a 6-character base62 CRC-32 of everything before it. The checksum
// lets us refuse typos and garbage without touching the database.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 32;
const CHECKSUM_CHARS = 6;
export const PREFIX_LENGTH = 16;
const KEY_PATTERN = /^svc_(live|test)_sk_([0-9A-Za-z]{38})$/;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: rejecting bytes ≥ 248 keeps every character equally likely.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateKey(environment: Environment): GeneratedKey {
  const body = `svc_${environment}_sk_${randomBase62(RANDOM_CHARS)}`;
  const key = body + checksum(body);
  return { key, prefix: key.slice(0, PREFIX_LENGTH), hash: hashKey(key) };
}

/** The environment a well-formed key claims, or null when its shape or checksum is wrong. */
export function parseKey(key: string): { environment: Environment } | null {
  const m = KEY_PATTERN.exec(key);
  if (!m) return null;
  const body = key.slice(0, key.length - CHECKSUM_CHARS);
  if (checksum(body) !== key.slice(-CHECKSUM_CHARS)) return null;
  return { environment: m[1] as Environment };
}
