import { ApiConnectionError, ApiError, ApiTimeoutError, errorFromResponse } from './errors.js';

// How the client talks to /v1 (docs/sdk.md): JSON in and out, the key as a bearer token, and
// retries that never run anything twice — every POST carries an Idempotency-Key, generated once
// per call and sent again on each retry, so a retried execute whose first answer was lost gets
// that answer replayed (`Idempotent-Replayed: true`) instead of a second run.

export interface ClientOptions {
  /** A secret key, `svc_live_sk_…` or `svc_test_sk_…` (the dashboard's API keys page). */
  apiKey: string;
  /** The service's origin, e.g. `https://agents.example.com` (default `http://localhost:3000`); the client adds `/v1`. */
  baseUrl?: string;
  /** Retries of a call that got no answer, a 408, 409 "in progress", 429 or 5xx (default 2). */
  maxRetries?: number;
  /** Milliseconds an attempt may take before it is abandoned (default 600,000: a `wait` may take minutes). */
  timeout?: number;
  /** The longest wait between attempts the client accepts (ms, default 60,000): a longer `Retry-After` is not waited out. */
  maxRetryDelay?: number;
  /** Your `fetch` (a proxy agent, a test double); default the platform's. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
}

export interface RequestOptions {
  /** The POST's Idempotency-Key (default: a new UUID per call, the same on every retry of it). */
  idempotencyKey?: string;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Overrides the client's `timeout` for this call. */
  timeout?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Under /v1, with its path parameters already encoded. */
  path: string;
  query?: Query;
  body?: unknown;
  options?: RequestOptions;
  /** Answer with the Response (an event stream), not its JSON. */
  raw?: boolean;
}

const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
const WAIT_TIMEOUT_MS = 960_000;

/** Percent-encodes one path segment (an id). */
export const seg = (value: string) => encodeURIComponent(value);

export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly timeout: number;
  private readonly maxRetryDelay: number;
  private readonly fetchImpl: typeof fetch;
  private readonly defaultHeaders: Record<string, string>;

  constructor(options: ClientOptions) {
    if (!options?.apiKey || typeof options.apiKey !== 'string') throw new ApiError('new Client({apiKey}): an API key is required');
    this.apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 2;
    this.timeout = options.timeout ?? 600_000;
    this.maxRetryDelay = options.maxRetryDelay ?? 60_000;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.defaultHeaders = options.defaultHeaders ?? {};
  }

  /** The call's JSON answer, after retries. */
  async json<T>(call: Omit<Call, 'raw'>): Promise<T> {
    const { text } = await this.exchange({ ...call, raw: false });
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (err) {
      throw new ApiConnectionError('The answer was not JSON (a proxy in between?)', { cause: err });
    }
  }

  /** Sends a call whose answer is an event stream: the response once its headers came, after retries. */
  async send(call: Call): Promise<Response> {
    return (await this.exchange({ ...call, raw: true })).response;
  }

  /**
   * Sends a call, retrying what is safe to retry: the first success, or the last failure thrown.
   * A JSON answer's body is read within the attempt (a connection cut while it arrives is retried
   * like one cut before); a stream's is left to its reader.
   */
  private async exchange(call: Call): Promise<{ response: Response; text: string }> {
    const opts = call.options ?? {};
    const retries = opts.maxRetries ?? this.maxRetries;
    const url = this.url(call.path, call.query);
    // Names in lower case, so that a caller's `Idempotency-Key` replaces ours instead of joining it.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries({ ...this.defaultHeaders, ...opts.headers })) headers[name.toLowerCase()] = value;
    headers.authorization = `Bearer ${this.apiKey}`;
    headers.accept = call.raw ? 'text/event-stream' : 'application/json';
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    // One key per call, not per attempt: a retry is the same request.
    if (call.method === 'POST') headers['idempotency-key'] = opts.idempotencyKey ?? headers['idempotency-key'] ?? uuid();
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);

    for (let attempt = 0; ; attempt++) {
      let answer: { response: Response; text: string };
      try {
        answer = await this.attempt(url, { method: call.method, headers, body }, opts, call.raw === true);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const error = err instanceof ApiTimeoutError ? err : new ApiConnectionError(`No answer from ${this.baseUrl}: ${(err as Error)?.message ?? err}`, { cause: err });
        if (attempt >= retries) throw error;
        await sleep(backoff(attempt), opts.signal);
        continue;
      }
      const { response, text } = answer;
      if (response.ok) return answer;
      const error = errorFromResponse(response.status, parseJson(text), response.headers);
      const wait = this.retryDelay(response, error, attempt);
      if (attempt >= retries || wait === null) throw error;
      await sleep(wait, opts.signal);
    }
  }

  /** How long to wait before retrying this failure, or null when it is not retried. */
  private retryDelay(response: Response, error: ApiError, attempt: number): number | null {
    // A retry that arrived while the first request still runs: the server says when to come back.
    const inProgress = response.status === 409 && error.code === 'idempotency_conflict' && response.headers.has('retry-after');
    if (!RETRY_STATUSES.has(response.status) && !inProgress) return null;
    const after = retryAfterMs(response.headers);
    if (after === null) return backoff(attempt);
    return after <= this.maxRetryDelay ? after : null;
  }

  /**
   * One attempt. The timeout covers the answer's headers for a stream (its events may take as
   * long as the run), and the whole answer, body included, otherwise; its timer never outlives
   * the attempt.
   */
  private async attempt(url: string, init: { method: string; headers: Record<string, string>; body?: string }, opts: RequestOptions, raw: boolean): Promise<{ response: Response; text: string }> {
    const timeout = opts.timeout ?? this.timeout;
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(new ApiTimeoutError(`No answer within ${timeout} ms`)), timeout);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
    try {
      const response = await this.fetchImpl(url, { ...init, signal });
      // A stream that failed is read here (its error envelope); one that succeeded, by its reader.
      const text = raw && response.ok ? '' : await response.text();
      return { response, text };
    } catch (err) {
      if (timer.signal.aborted && !opts.signal?.aborted) throw new ApiTimeoutError(`No answer within ${timeout} ms`, { cause: err });
      throw err;
    } finally {
      clearTimeout(t);
    }
  }

  /** A `wait` call's timeout: the service waits up to a run's timeout (at most 900 s) plus 30 s. */
  waitTimeout(options?: RequestOptions): number {
    return options?.timeout ?? Math.max(this.timeout, WAIT_TIMEOUT_MS);
  }

  /** An execution's status now (what a stream that ended quietly checks). */
  async statusOf(executionId: string, options?: RequestOptions): Promise<string> {
    return (await this.json<{ status: string }>({ method: 'GET', path: `/executions/${seg(executionId)}`, options: { ...options, headers: {} } })).status;
  }

  url(path: string, query?: Query): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) q.set(k, String(v));
    const s = q.toString();
    return `${this.baseUrl}/v1${path}${s ? `?${s}` : ''}`;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A v4 UUID: `crypto.randomUUID` where there is one (it needs a secure context in browsers), else from `getRandomValues`. */
export function uuid(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') {
    try {
      return globalThis.crypto.randomUUID();
    } catch {
      // an insecure browser page: below
    }
  }
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** `Retry-After` in ms: seconds, or an HTTP date. */
function retryAfterMs(headers: Headers): number | null {
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

/** Exponential backoff with jitter: ~0.5 s, 1 s, 2 s … at most 8 s. */
export function backoff(attempt: number): number {
  const base = Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_BACKOFF_MS);
  return base * (0.75 + Math.random() * 0.25);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(t), reject(signal!.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
