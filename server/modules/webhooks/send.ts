import { request } from 'undici';
import { checkUrlShape, guardedDispatcher, UrlRefused } from '../../platform/net/url-guard';
import { connectionError, discard, readCapped, signatures, USER_AGENT } from '../tools/http-tool';

// One HTTP attempt of a webhook delivery (docs/webhooks.md, "The request"; Standard Webhooks): POST
// the event's JSON, signed with every active secret, through the SSRF guard (checkUrlShape for IP
// literals, then the guarded dispatcher that connects only to the public address it checked), no
// redirects followed, one time limit for the whole attempt. Never throws: the outcome is the
// attempt log.

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first 1 KB of the answer's body. */
  excerpt: string | null;
  /** Seconds the receiver asked us to wait (`Retry-After`), if it said. */
  retryAfterSeconds?: number;
}

export const EXCERPT_BYTES = 1024;

export interface SendOptions {
  /** `whsec_…` secrets to sign with (the current one, and a rotated-out one still in its 24 h). */
  secrets: string[];
  allowPrivate: boolean;
  requireHttps: boolean;
  timeoutMs: number;
  /** A W3C `traceparent` to send (an execution's event: the run's root span, docs/traces.md). */
  traceparent?: string | null;
}

export async function sendWebhook(url: string, id: string, body: string, opts: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string, statusCode: number | null = null): AttemptResult => ({ ok: false, statusCode, latencyMs: elapsed(), error, excerpt: null });
  let target: URL;
  try {
    target = checkUrlShape(url, { allowPrivate: opts.allowPrivate, requireHttps: opts.requireHttps });
  } catch (err) {
    if (err instanceof UrlRefused) return failed(`The endpoint URL ${err.message}`);
    throw err;
  }
  const now = new Date();
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures(opts.secrets, id, now, body),
    ...(opts.traceparent ? { traceparent: opts.traceparent } : {}),
  };
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new Error('timed out')), opts.timeoutMs);
  try {
    const res = await request(target, {
      method: 'POST',
      headers,
      body,
      signal: timer.signal,
      dispatcher: guardedDispatcher({ allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs }),
    });
    const statusCode = res.statusCode;
    const retryAfterSeconds = parseRetryAfter(res.headers['retry-after'], now);
    if (statusCode >= 300 && statusCode < 400) {
      discard(res.body);
      return { ...failed(`The endpoint answered a redirect (HTTP ${statusCode}), which is not followed`, statusCode) };
    }
    const { bytes } = await readCapped(res.body, EXCERPT_BYTES);
    // Cut on a character boundary; NUL cannot be stored in a PostgreSQL text column.
    const excerpt = bytes.length > 0 ? new TextDecoder().decode(bytes).replace(/\uFFFD+$/, '').replaceAll('\0', '') : null;
    const ok = statusCode >= 200 && statusCode < 300;
    return {
      ok,
      statusCode,
      latencyMs: elapsed(),
      error: ok ? null : `The endpoint answered HTTP ${statusCode}`,
      excerpt,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  } catch (err) {
    if (timer.signal.aborted) return failed(`The endpoint did not answer within ${opts.timeoutMs / 1000} s`);
    return failed(connectionError(err, 'The endpoint'));
  } finally {
    clearTimeout(timeout);
  }
}

/** `Retry-After` as seconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d{1,10}$/.test(raw)) return Number(raw);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
