import type { ServerResponse } from 'node:http';

// Where the event-stream writer (sse.ts) writes: a node response (the REST API's streams) or a
// web ReadableStream (the dashboard's route handler). Both tell the writer when the client's
// buffer is full, when it drained, and when the client left.

export interface EventSink {
  /** Writes a chunk; false when the client's buffer is full (then wait for `drained`). */
  write(chunk: string): boolean;
  /** Resolves when the client has taken what was buffered (or the sink closed). */
  drained(): Promise<void>;
  end(): void;
  /** Drops the client (it stopped reading). */
  destroy(): void;
  readonly closed: boolean;
  onClose(fn: () => void): void;
}

/** A node response as a sink (its headers are written already). */
export function eventSink(res: ServerResponse): EventSink {
  const closed = () => res.destroyed || res.writableEnded;
  return {
    write: (chunk) => res.write(chunk),
    drained: () =>
      closed() || !res.writableNeedDrain
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.once('drain', done);
            res.once('close', done);
          }),
    end: () => res.end(),
    destroy: () => res.destroy(),
    get closed() {
      return closed();
    },
    onClose: (fn) => void res.once('close', fn),
  };
}

/** A web ReadableStream sink: pulled by the client, 64 KB of queue at most (sse.test.ts reads the writer through it). */
export function webSink(): { sink: EventSink; stream: ReadableStream<Uint8Array> } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const closers: (() => void)[] = [];
  let pulled: (() => void) | null = null;
  const close = () => {
    if (closed) return;
    closed = true;
    pulled?.();
    for (const fn of closers) fn();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: () => {
        pulled?.();
        pulled = null;
      },
      cancel: close,
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  const sink: EventSink = {
    write: (chunk) => {
      if (closed) return true;
      controller.enqueue(encoder.encode(chunk));
      return (controller.desiredSize ?? 0) > 0;
    },
    drained: () => (closed || (controller.desiredSize ?? 0) > 0 ? Promise.resolve() : new Promise<void>((r) => (pulled = r))),
    end: () => {
      if (closed) return;
      controller.close();
      close();
    },
    destroy: () => {
      if (closed) return;
      controller.error(new Error('the client stopped reading'));
      close();
    },
    get closed() {
      return closed;
    },
    onClose: (fn) => void closers.push(fn),
  };
  return { sink, stream };
}
