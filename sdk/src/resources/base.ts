import { seg, type Query, type RequestOptions, type Transport } from '../core.js';
import { PagedList, type PageEnvelope } from '../pagination.js';
import type { Answer, Body, OperationId, QueryOf } from '../types.js';

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

/** An execution's event stream, after `lastEventId` when given. */
export function followStream(transport: Transport, executionId: string, lastEventId: string | undefined, options: RequestOptions): Promise<Response> {
  const headers = { ...options.headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) };
  return transport.send({ method: 'GET', path: `/executions/${seg(executionId)}/stream`, raw: true, options: { ...options, headers } });
}
