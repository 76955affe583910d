import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors';

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_BODY_DEPTH = 32;

const tooLarge = () => new ApiError(413, 'request_too_large', 'The request body is larger than 1 MiB');

/** Reads the raw body, refusing more than 1 MiB (declared or actually sent). */
export function readRawBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The JSON object of a request that carries a body (POST, PATCH, PUT). No body at all is `{}`
 * (so `POST …/cancel` needs none); otherwise the type must be application/json (parameters
 * such as charset are fine) and the body a JSON object.
 */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readRawBody(req);
  if (raw.length === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(
      415,
      'unsupported_media_type',
      type ? `Unsupported content type '${type}': send application/json` : 'Missing Content-Type: send application/json',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'invalid_json', 'The request body must be a JSON object');
  }
  if (depthOf(parsed) > MAX_BODY_DEPTH) {
    throw new ApiError(400, 'invalid_json', `The request body is nested more than ${MAX_BODY_DEPTH} levels deep`);
  }
  return parsed as Record<string, unknown>;
}

/** How deeply objects and arrays nest in a parsed JSON value (iteratively: any depth is safe). */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, depth + 1);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return max;
}
