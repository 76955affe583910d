import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { request, type Dispatcher } from 'undici';
import { checkUrlShape, guardedDispatcher, UrlRefused } from '../../platform/net/url-guard';

// Calls an agent's HTTP tool (docs/api.md, "Agents"): the model's arguments go out as JSON (or as
// the query string for GET), signed the Standard Webhooks way (as webhooks are: docs/webhooks.md)
// so the tool can check the call came from us, with a 30 s timeout and at most 100 KB of answer
// handed back to the model.
// The signed content is the request line and the body, `<METHOD> <URL>\n<body>` (signedContent):
// a signature over the body alone left a GET unsigned and let the URL or method be swapped
// (docs/executions.md, "Tool signing").
// The URL is a user's, so it goes through the SSRF guard: checkUrlShape for IP literals, then
// the guarded dispatcher, which refuses non-public addresses at connect time. Redirects are
// never followed (undici.request does not follow them; a 3xx is a failed call).
//
// A tool failing is a result, never an exception: the model sees `error` and can carry on.
// The one exception is the caller's own AbortSignal (execution cancelled): that abort is
// rethrown as is, so cancelling never looks like a tool answer.

export interface HttpToolSpec {
  name: string;
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

export interface ToolCallResult {
  ok: boolean;
  status?: number;
  /** Parsed JSON when the response is (untruncated) JSON, else the text. */
  body?: unknown;
  truncated?: boolean;
  /** A message safe to show to the model and API users. */
  error?: string;
}

export interface HttpToolCallOptions {
  /** The agent's signing secrets, `whsec_…`: the current one, and a rotated-out one still in its 24 h. */
  secrets: string[];
  /** Sent as `webhook-id`: stable for one tool call, so the tool can deduplicate. */
  callId: string;
  signal?: AbortSignal;
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Extra request headers; ours (signature, content type, user agent) win over them. */
  headers?: Record<string, string>;
}

export const TOOL_TIMEOUT_MS = 30_000;
export const TOOL_MAX_BYTES = 100 * 1024;
export const USER_AGENT = 'agent-automation-service/0.1';

/** A fresh signing secret in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes. */
export function newToolSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `webhook-signature`: one `v1,<base64>` per secret, space-separated (a receiver accepts any of them). */
export function signatures(secrets: string[], id: string, at: Date, content: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, content)).join(' ');
}

/**
 * What a tool call's signature covers: the method, the exact URL requested (query included) and
 * the raw body (empty for GET). A tool verifies with
 * `new Webhook(secret).verify(`${method} ${url}\n${rawBody}`, headers, { jsonParse: false })`
 * (the content is not JSON: without the option, verify would try to parse it once it matched).
 */
export function signedContent(method: string, url: URL, body: string): string {
  return `${method} ${url.href}\n${body}`;
}

export async function callHttpTool(tool: HttpToolSpec, args: unknown, opts: HttpToolCallOptions): Promise<ToolCallResult> {
  const timeoutMs = opts.timeoutMs ?? TOOL_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? TOOL_MAX_BYTES;
  opts.signal?.throwIfAborted();

  let url: URL;
  try {
    url = checkUrlShape(tool.url, { allowPrivate: opts.allowPrivate });
  } catch (err) {
    if (err instanceof UrlRefused) return { ok: false, error: `The tool URL ${err.message}` };
    throw err;
  }
  // A fragment is never sent, so it is not part of the URL the tool sees and verifies.
  url.hash = '';

  const isGet = tool.method === 'GET';
  let payload = '';
  if (isGet) {
    // The query parameters written in the tool's URL are the tool owner's: the model may add
    // parameters, never replace or repeat one of them (`?mode=a` must not become `mode=b`).
    const fixed = queryKeys(args).find((key) => url.searchParams.has(key));
    if (fixed !== undefined) {
      return { ok: false, error: `Not called: the argument '${fixed}' names a query parameter that the tool's URL fixes` };
    }
    appendQuery(url, args);
  } else {
    try {
      payload = JSON.stringify(args ?? {}) ?? '{}';
    } catch {
      return { ok: false, error: 'The tool arguments could not be encoded as JSON' };
    }
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name.toLowerCase()] = value;
  const now = new Date();
  Object.assign(headers, {
    'user-agent': USER_AGENT,
    accept: 'application/json',
    'webhook-id': opts.callId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures(opts.secrets, opts.callId, now, signedContent(tool.method, url, payload)),
  });
  if (!isGet) headers['content-type'] = 'application/json';

  // One controller for our timeout, merged with the caller's signal: which one fired decides
  // between "rethrow" (caller) and "timed out" (ours).
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new Error('tool call timed out')), timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
  try {
    const res = await request(url, {
      method: tool.method,
      headers,
      body: isGet ? undefined : payload,
      signal,
      dispatcher: guardedDispatcher({ allowPrivate: opts.allowPrivate }),
    });
    const status = res.statusCode;
    if (status >= 300 && status < 400) {
      discard(res.body);
      return { ok: false, status, error: 'The tool answered a redirect (3xx), which is not followed' };
    }
    const { bytes, truncated } = await readCapped(res.body, maxBytes);
    const body = decodeBody(bytes, truncated, res.headers['content-type']);
    const result: ToolCallResult = { ok: status >= 200 && status < 300, status, body };
    if (truncated) result.truncated = true;
    if (!result.ok) result.error = `The tool answered HTTP ${status}`;
    return result;
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    if (timer.signal.aborted) return { ok: false, error: `The tool did not answer within ${timeoutMs / 1000} s` };
    return { ok: false, error: connectionError(err) };
  } finally {
    clearTimeout(timeout);
  }
}

/** The query parameters appendQuery would add for these arguments. */
function queryKeys(args: unknown): string[] {
  if (args === undefined || args === null) return [];
  if (typeof args !== 'object' || Array.isArray(args)) return ['args'];
  return Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key);
}

/** GET arguments: each top-level key becomes a query parameter, non-strings JSON-encoded. */
function appendQuery(url: URL, args: unknown): void {
  if (args === undefined || args === null) return;
  if (typeof args !== 'object' || Array.isArray(args)) {
    url.searchParams.append('args', JSON.stringify(args));
    return;
  }
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    url.searchParams.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
}

/** Reads at most maxBytes of the body, then drops the connection rather than draining the rest. */
export async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (size + buf.length > maxBytes) {
      chunks.push(buf.subarray(0, maxBytes - size));
      discard(body);
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

// Destroying an unfinished undici body emits RequestAbortedError: nobody is left to care.
export function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function decodeBody(bytes: Buffer, truncated: boolean, contentType: string | string[] | undefined): unknown {
  const text = new TextDecoder().decode(bytes);
  const type = (Array.isArray(contentType) ? contentType[0] : contentType) ?? '';
  if (!truncated && /\bjson\b/i.test(type)) {
    try {
      return JSON.parse(text);
    } catch {
      // Not the JSON it claims to be: the model gets the text.
    }
  }
  return text;
}

const CONNECTION_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'refused the connection',
  ECONNRESET: 'closed the connection',
  UND_ERR_SOCKET: 'closed the connection',
  ENOTFOUND: 'host could not be resolved',
  EAI_AGAIN: 'host could not be resolved',
  UND_ERR_CONNECT_TIMEOUT: 'could not be reached (connection timed out)',
  ETIMEDOUT: 'could not be reached (connection timed out)',
  EHOSTUNREACH: 'host is unreachable',
  ENETUNREACH: 'host is unreachable',
};

/**
 * A safe message for a failed connection to `subject` ("The tool", "The endpoint"): no stack, no
 * internal detail beyond the error kind.
 */
export function connectionError(err: unknown, subject = 'The tool'): string {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof UrlRefused) return `${subject} URL ${e.message}`;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (CONNECTION_MESSAGES[code]) return `${subject} ${CONNECTION_MESSAGES[code]}`;
      if (/CERT|TLS|SSL/.test(code)) return `${subject}’s TLS certificate could not be verified`;
    }
  }
  return `${subject} could not be reached`;
}
