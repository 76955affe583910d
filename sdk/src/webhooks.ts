import { ApiError } from './errors.js';
import type { Event } from './types.js';

// Checking a webhook delivery (docs/webhooks.md): the service signs each attempt by the Standard
// Webhooks rules — `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`,
// one per active secret (two for 24 h after a rotation) — with the endpoint's `whsec_…` secret.
// Web Crypto only, so it runs wherever the client does. Verify the body exactly as received
// (the raw text, before any JSON parsing).

export class WebhookVerificationError extends ApiError {
  override readonly name = 'WebhookVerificationError';
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Checks a delivery's signature and age, and answers its event. Throws `WebhookVerificationError`
 * when a header is missing, the timestamp is more than `toleranceSeconds` (default 300) from now,
 * or no signature matches `secret`.
 */
export async function verifyWebhook(payload: string | Uint8Array, headers: HeaderBag, secret: string, opts: { toleranceSeconds?: number; now?: Date } = {}): Promise<Event> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  const seconds = Number(timestamp);
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const tolerance = opts.toleranceSeconds ?? 300;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now - seconds) > tolerance) throw new WebhookVerificationError('The webhook-timestamp is too old or too new');

  let keyBytes: Uint8Array<ArrayBuffer>;
  try {
    keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('The secret is not a whsec_… secret');
  }
  if (keyBytes.length === 0) throw new WebhookVerificationError('The secret is empty');
  // The bytes as received: a Uint8Array is signed as it is (decoding could change it: a BOM, invalid UTF-8).
  const bodyBytes = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  for (const candidate of signatures.split(' ')) {
    const [version, signature] = candidate.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = base64ToBytes(signature);
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    if (await globalThis.crypto.subtle.verify('HMAC', key, bytes, signed)) {
      try {
        return JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload)) as Event;
      } catch {
        throw new WebhookVerificationError('The payload is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('No signature matches the secret');
}
