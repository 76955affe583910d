import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import type { FollowEvent } from '../modules/executions/engine';
import { webSink } from './sse-sinks';
import { closeSignal, SSE_HEADERS, writeEvents } from './sse';

// The one event-stream writer, driven with events made here (no database, no server): how it
// frames events, sends a large one piece by piece, pings an idle stream, and stops following
// when the client leaves or `stop` aborts.

/** The writer into a web stream, read as a Response (what a client reads). */
function eventStreamResponse(follow: (signal: AbortSignal) => AsyncIterable<FollowEvent>): Response {
  const { sink, stream } = webSink();
  void writeEvents(sink, follow).catch(() => sink.end());
  return new Response(stream, { headers: SSE_HEADERS });
}

const event = (seq: number, type: FollowEvent['type'], data: object): FollowEvent => ({ seq, type, json: JSON.stringify({ type, ...data }) });

describe('writeEvents', () => {
  it('frames each event as a Server-Sent Event and ends the stream after the last', async () => {
    const res = eventStreamResponse(async function* () {
      yield event(1, 'execution.started', { execution: { id: 'exe_1' } });
      yield event(2, 'text.delta', { delta: 'Hé\nllo', step: 0 });
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(
      await res.text(),
      'id: 1\nevent: execution.started\ndata: {"type":"execution.started","execution":{"id":"exe_1"}}\n\n' +
        'id: 2\nevent: text.delta\ndata: {"type":"text.delta","delta":"Hé\\nllo","step":0}\n\n',
    );
  });

  it('writes a large event from its pieces, taken one at a time', async () => {
    const taken: number[] = [];
    const big = 'y'.repeat(300_000);
    const res = eventStreamResponse(async function* () {
      yield {
        seq: 7,
        type: 'execution.succeeded',
        json: null,
        length: big.length + 20,
        async *pieces() {
          for (const [i, piece] of ['{"type":"execution.succeeded",', `"output":"${big}"`, '}'].entries()) {
            taken.push(i);
            yield piece;
          }
        },
      };
    });
    const text = await res.text();
    assert.deepEqual(taken, [0, 1, 2]);
    const [head, data] = text.split('\ndata: ');
    assert.equal(head, 'id: 7\nevent: execution.succeeded');
    assert.ok(data!.endsWith('\n\n'));
    assert.equal((JSON.parse(data!) as { output: string }).output, big);
  });

  it('pings an idle stream with a comment line, and the pending event still comes', async () => {
    const { sink, stream } = webSink();
    let release!: () => void;
    const written = writeEvents(
      sink,
      async function* () {
        await new Promise<void>((r) => (release = r));
        yield event(3, 'execution.cancelled', {});
      },
      { pingMs: 20 },
    );
    const reader = stream.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.equal(first, ': ping\n\n');
    release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    await written;
    assert.match(rest, /id: 3\nevent: execution.cancelled\ndata: \{"type":"execution.cancelled"\}\n\n$/);
  });

  it('aborts the following when the client leaves, and when `stop` aborts', async () => {
    for (const how of ['client', 'stop'] as const) {
      const { sink, stream } = webSink();
      const stop = new AbortController();
      let seen: AbortSignal | undefined;
      let ended = false;
      const written = writeEvents(
        sink,
        (signal) => {
          seen = signal;
          return (async function* () {
            try {
              yield event(1, 'execution.started', {});
              await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
            } finally {
              ended = true;
            }
          })();
        },
        { stop: stop.signal },
      );
      const reader = stream.getReader();
      await reader.read();
      if (how === 'client') await reader.cancel();
      else stop.abort();
      await written;
      assert.equal(seen?.aborted, true, how);
      assert.equal(ended, true, `${how}: the iterable was closed`);
      assert.equal(sink.closed, true);
    }
  });
});

describe('closeSignal', () => {
  it('aborts when the client leaves before the answer, not when the answer was written', async () => {
    const signals: AbortSignal[] = [];
    const server = createServer((req, res) => {
      const signal = closeSignal(res);
      signals.push(signal);
      if (req.url === '/answer') res.end('done');
      // '/leave': no answer; the client goes away.
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      assert.equal(await (await fetch(`${url}/answer`)).text(), 'done');
      const leaving = new AbortController();
      const gone = fetch(`${url}/leave`, { signal: leaving.signal }).catch(() => null);
      while (signals.length < 2) await new Promise((r) => setTimeout(r, 5));
      leaving.abort();
      await gone;
      for (let i = 0; i < 200 && !signals[1]!.aborted; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(signals[1]!.aborted, true, 'the client left: aborted');
      assert.equal(signals[0]!.aborted, false, 'answered: nothing to stop');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
