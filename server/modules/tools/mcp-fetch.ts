import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { checkUrlShape, guardedDispatcher } from '../../platform/net/url-guard';

// The fetch the MCP client (@ai-sdk/mcp's Streamable HTTP transport) makes its requests with,
// so that the SSRF guard applies to the connections it actually opens, as it does to HTTP tools
// and webhooks (docs/security.md): each URL passes checkUrlShape (IP literals), then undici's
// fetch through the guarded dispatcher, which resolves the name and connects only to an allowed
// address (no DNS rebinding between the check and the connection). Besides:
// - redirects are never followed: a 3xx fails the request;
// - an answer is read up to MCP_MAX_RESPONSE_BYTES, then fails the request;
// - the server-to-client stream (a GET the transport opens to receive server requests and
//   notifications) is answered 405 here, without a request: a run needs neither, and it would
//   hold a connection to the server for the whole run;
// - a request without a signal of its own (the session's DELETE on close) gets a time limit.

/** The most bytes one answer of an MCP server may have (a tools/list page, a tools/call result). */
export const MCP_MAX_RESPONSE_BYTES = 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** A failure of ours, with a message safe for the model and API users ("The server …" is prefixed by the caller). */
export class McpFetchRefused extends Error {
  override name = 'McpFetchRefused';
}

export function guardedMcpFetch(opts: { allowPrivate: boolean; maxBytes?: number; timeoutMs?: number }): typeof globalThis.fetch {
  const maxBytes = opts.maxBytes ?? MCP_MAX_RESPONSE_BYTES;
  return async (input, init) => {
    const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = checkUrlShape(raw, { allowPrivate: opts.allowPrivate });
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET') return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    const res = await undiciFetch(url, {
      ...(init as UndiciRequestInit),
      method,
      redirect: 'manual',
      signal: init?.signal ?? AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
      dispatcher: guardedDispatcher({ allowPrivate: opts.allowPrivate }),
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw new McpFetchRefused(`answered a redirect (HTTP ${res.status}), which is not followed`);
    }
    const headers = new Headers([...res.headers]);
    const init2 = { status: res.status, statusText: res.statusText, headers };
    // Statuses that cannot have a body (a Response with one throws).
    if (!res.body || [101, 204, 205, 304].includes(res.status)) return new Response(null, init2);
    return new Response((res.body as unknown as ReadableStream<Uint8Array>).pipeThrough(capped(maxBytes)), init2);
  };
}

/** Passes bytes through until more than `maxBytes` went by, then fails the stream. */
function capped(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new McpFetchRefused(`answered more than ${maxBytes / 1024 / 1024} MiB`));
      else controller.enqueue(chunk);
    },
  });
}
