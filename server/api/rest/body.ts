import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../platform/errors';
import { jsonDepth, MAX_BODY_BYTES, MAX_BODY_DEPTH } from '../../platform/http/exchange';
import { assertStorableText } from '../../platform/text-input';

const tooLarge = () => new ApiError('request_too_large', 'The request body is larger than 1 MiB');

/**
 * Reads the raw body, refusing more than 1 MiB (declared or actually sent). On refusal it stops
 * reading: the caller answers 413 and closes the connection (closeAfterResponse).
 */
export function readRawBody(req: IncomingMessage): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The JSON object of a request that carries a body (POST, PATCH, PUT). No body at all is `{}`
 * (so `POST …/cancel` needs none); otherwise the type must be application/json (parameters
 * such as charset are fine), the body a JSON object nested at most 32 levels deep, and every
 * string and key in it storable text (server/platform/text-input.ts: 400 invalid_parameter otherwise).
 */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readRawBody(req);
  if (raw.length === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(
      'unsupported_media_type',
      type ? `Unsupported content type '${type}': send application/json` : 'Missing Content-Type: send application/json',
    );
  }
  const text = raw.toString('utf8');
  if (jsonDepth(text) > MAX_BODY_DEPTH) {
    throw new ApiError('invalid_json', `The request body is nested more than ${MAX_BODY_DEPTH} levels deep`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError('invalid_json', 'The request body must be a JSON object');
  }
  // JSON can spell a lone surrogate ("\ud800") or NUL that no database column can hold.
  assertStorableText(parsed);
  return parsed as Record<string, unknown>;
}

export type Query = Record<string, string | string[]>;

/**
 * The query string as a null-prototype object. A parameter named like a property every object
 * inherits (`__proto__`, `constructor`, `toString`…) is refused as unknown: no schema has one,
 * and passed on it would reach code that treats it as that property.
 */
export function parseQuery(url: string): Query {
  const query: Query = Object.create(null) as Query;
  const at = url.indexOf('?');
  if (at < 0) return query;
  for (const [key, value] of new URLSearchParams(url.slice(at + 1))) {
    if (key in Object.prototype) {
      throw new ApiError('unknown_parameter', `Unknown query parameter '${key.slice(0, 64)}'`, { param: key.slice(0, 64) });
    }
    const prev = query[key];
    query[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return query;
}
