import { seg, uuid, type Query, type RequestOptions, type Transport } from '../core.js';
import { PagedList, type PageEnvelope } from '../pagination.js';
import { ExecutionStream } from '../stream.js';
import type { Answer, Body, Execution, OperationId, QueryOf } from '../types.js';

// What every resource does with the transport: typed by operation (types.ts), so a method's
// parameters and answer are the OpenAPI document's.

export { seg };

export abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  protected get<O extends OperationId>(_op: O, path: string, query?: QueryOf<O>, options?: RequestOptions): Promise<Answer<O>> {
    return this.transport.json({ method: 'GET', path, query: query as Query | undefined, options });
  }

  protected post<O extends OperationId>(_op: O, path: string, body: Body<O> | undefined, options?: RequestOptions): Promise<Answer<O>> {
    return this.transport.json({ method: 'POST', path, body: body ?? {}, options });
  }

  protected patch<O extends OperationId>(_op: O, path: string, body: Body<O>, options?: RequestOptions): Promise<Answer<O>> {
    return this.transport.json({ method: 'PATCH', path, body, options });
  }

  protected put<O extends OperationId>(_op: O, path: string, body: Body<O>, options?: RequestOptions): Promise<Answer<O>> {
    return this.transport.json({ method: 'PUT', path, body, options });
  }

  protected del<O extends OperationId>(_op: O, path: string, options?: RequestOptions): Promise<Answer<O>> {
    return this.transport.json({ method: 'DELETE', path, options });
  }

  /**
   * A list: every page after the first asks for the items after the previous page's last (a
   * `before` given for the first page is dropped then: the two cannot go together).
   */
  protected paged<T>(op: OperationId, path: string, query: object | undefined, options?: RequestOptions): PagedList<T> {
    return new PagedList<T>((after) => {
      const { before, ...rest } = (query ?? {}) as { before?: string };
      return this.get(op, path, (after ? { ...rest, after } : { ...rest, ...(before === undefined ? {} : { before }) }) as never, options) as Promise<PageEnvelope<T>>;
    });
  }
}

/**
 * A call that starts or resumes a run (execute, approvals): the execution — once final or paused
 * with `wait`, at once without — or, with `stream`, an ExecutionStream. Until the stream's first
 * event a reconnection sends the call again under the same Idempotency-Key (the service replays
 * that execution's stream); after it, it follows the execution from its last event. Nothing is
 * sent before the stream is iterated.
 */
export function runOrStream(
  transport: Transport,
  path: string,
  params: { wait?: boolean; stream?: boolean },
  options: RequestOptions | undefined,
  executionId?: string,
): Promise<Execution> | ExecutionStream {
  if (!params.stream) {
    const timeout = params.wait ? transport.waitTimeout(options) : options?.timeout;
    return transport.json<Execution>({ method: 'POST', path, body: params, options: { ...options, ...(timeout === undefined ? {} : { timeout }) } });
  }
  const keyed = { ...options, idempotencyKey: options?.idempotencyKey ?? uuid() };
  return new ExecutionStream(
    ({ executionId: known, lastEventId }) =>
      known && lastEventId ? followStream(transport, known, lastEventId, keyed) : transport.send({ method: 'POST', path, body: params, raw: true, options: keyed }),
    { maxReconnects: options?.maxRetries ?? 5, signal: options?.signal, ...(executionId ? { executionId } : {}), statusOf: (eid) => transport.statusOf(eid, options) },
  );
}

/** An execution's event stream, after `lastEventId` when given. */
export function followStream(transport: Transport, executionId: string, lastEventId: string | undefined, options: RequestOptions): Promise<Response> {
  const headers = { ...options.headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) };
  return transport.send({ method: 'GET', path: `/executions/${seg(executionId)}/stream`, raw: true, options: { ...options, headers } });
}
