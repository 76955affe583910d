import type { ServerResponse } from 'node:http';
import { SSE_HEADERS, type EventSink } from '../modules/executions/engine';

// The node:http side of the engine's event streams (docs/executions.md, "Streams (SSE)"): a
// response as the sink the engine writes events to, and a response's close as the signal that
// stops a wait.

/** A response as an event stream: 200 with the SSE headers at once, then the engine's writes. */
export function responseSink(res: ServerResponse): EventSink {
  res.writeHead(200, { ...SSE_HEADERS, Connection: 'keep-alive' });
  res.flushHeaders();
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

/** Aborts when the response closes (the client went away): a wait stops, the run goes on. */
export function closeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed) controller.abort();
  else res.once('close', () => controller.abort());
  return controller.signal;
}
