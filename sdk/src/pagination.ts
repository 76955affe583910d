import type { RequestOptions } from './core.js';

// Lists (docs/api.md, "Pagination"): keyset pages, newest first. `client.agents.list()` is both
// awaitable — the first page — and async-iterable — every item of every page, fetched as you go:
//
//   for await (const agent of client.agents.list({ limit: 100 })) …
//   const page = await client.agents.list();  // page.data, page.hasMore, page.nextCursor

export interface PageEnvelope<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  prevCursor?: string;
}

export class Page<T> implements PageEnvelope<T> {
  readonly data: T[];
  readonly hasMore: boolean;
  readonly nextCursor?: string;
  readonly prevCursor?: string;

  constructor(
    envelope: PageEnvelope<T>,
    private readonly fetchAfter: (cursor: string) => Promise<Page<T>>,
  ) {
    this.data = envelope.data;
    this.hasMore = envelope.hasMore;
    if (envelope.nextCursor !== undefined) this.nextCursor = envelope.nextCursor;
    if (envelope.prevCursor !== undefined) this.prevCursor = envelope.prevCursor;
  }

  /** The page of older items, or null when this is the last. */
  nextPage(): Promise<Page<T> | null> {
    return this.hasMore && this.nextCursor ? this.fetchAfter(this.nextCursor) : Promise.resolve(null);
  }
}

/** A list call: await it for the first page, or iterate it for every item. */
export class PagedList<T> implements AsyncIterable<T>, PromiseLike<Page<T>> {
  private first?: Promise<Page<T>>;

  constructor(private readonly fetchPage: (after: string | undefined) => Promise<PageEnvelope<T>>) {}

  private page(after: string | undefined): Promise<Page<T>> {
    return this.fetchPage(after).then((envelope) => new Page(envelope, (cursor) => this.page(cursor)));
  }

  /** The first page (fetched once). */
  firstPage(): Promise<Page<T>> {
    // A failed first page is not kept: the next await or iteration asks again.
    this.first ??= this.page(undefined).catch((err: unknown) => {
      this.first = undefined;
      throw err;
    });
    return this.first;
  }

  then<R1 = Page<T>, R2 = never>(onFulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null, onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Page<T>> {
    return this.firstPage().finally(onFinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page: Page<T> | null = await this.firstPage();
    while (page) {
      yield* page.data;
      page = await page.nextPage();
    }
  }

  /** Every item, into an array (at most `limit` of them, default 10,000). */
  async toArray(limit = 10_000): Promise<T[]> {
    const items: T[] = [];
    if (limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}

export type ListOptions = RequestOptions;
