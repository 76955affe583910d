import type { Db } from '../../../db/client';
import { terminalEventType } from './events';
import { eventJson, type Live, type LiveEvent, type LocalRun } from './live';
import { isFinal, PAUSED_STATUS } from '../vocabulary/statuses';
import { pauseEvent } from './pause';
import { appendEvents, executionView, RESERVE, startedSeq, type ExecutionRow, type RunEvent, type RunTail, type SeqEvent } from './lifecycle';

// The event log of one run, kept by the worker running it (docs/executions.md, "Streams").
// Each event gets its sequence number here and reaches this process's streams at once (the
// run's tail, live.ts). Writing to the database is batched: lazily (every LAZY_MS) while nobody
// follows the run from another process, promptly (EAGER_MS) once someone does, and always
// before the buffer grows past MAX_PENDING_BYTES; what is left is written with the outcome. The
// database keeps `event_seq` RESERVE numbers ahead of what was written, so an outcome written
// by someone else (a cancel) always gets a higher number than any event already sent.

const LAZY_MS = 2_000;
const EAGER_MS = 40;
const MAX_PENDING_BYTES = 256 * 1024;

export class RunLog implements LocalRun {
  private next: number;
  private reserved: number;
  private written: number;
  /** Every event of the run (the first is `execution.started`), for a stream that starts following it. */
  private readonly all: SeqEvent[] = [];
  private pending: SeqEvent[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private eager = false;

  /** `lost`: called when a write finds the run no longer this worker's (cancelled, or declared lost). */
  constructor(
    private readonly db: Db,
    private readonly live: Live,
    private readonly row: ExecutionRow,
    private readonly lost: () => void,
  ) {
    const started = startedSeq(row);
    this.next = started + 1;
    this.written = started;
    this.reserved = row.eventSeq;
    live.local(row.id, this);
  }

  events(): LiveEvent[] {
    const started = startedSeq(this.row);
    return [
      { seq: started, type: 'execution.started', json: eventJson({ type: 'execution.started', data: { execution: executionView(this.row) } }) },
      ...this.all.map((e) => ({ seq: e.seq, type: e.type, json: eventJson(e) })),
    ];
  }

  persisted(): number {
    return this.written;
  }

  async push(event: RunEvent): Promise<void> {
    // Past the reservation: write first (which moves it up) before handing out more numbers.
    if (this.next > this.reserved) await this.flush();
    const seq = this.next++;
    const e = { seq, ...event };
    this.all.push(e);
    this.pending.push(e);
    // Rendered only for streams of this process that follow the run.
    this.live.localTail(this.row.id)?.append([{ seq, type: event.type, json: eventJson(event) }]);
    this.pendingBytes += approximateSize(event);
    if (this.pendingBytes > MAX_PENDING_BYTES) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.eager ? EAGER_MS : LAZY_MS);
  }

  /** Someone follows the run from another process: write what is buffered now, and promptly from now on. */
  follow(): void {
    if (this.eager) return;
    this.eager = true;
    void this.flush();
  }

  /** Writes what is buffered (after every earlier batch). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (batch.length > 0) {
      const last = batch.at(-1)!.seq;
      const reserveTo = last + RESERVE;
      this.chain = this.chain.then(async () => {
        if (!(await appendEvents(this.db, this.row.id, this.row.attempt, batch, reserveTo))) return this.lost();
        this.reserved = Math.max(this.reserved, reserveTo);
        this.written = Math.max(this.written, last);
        this.live.localTail(this.row.id)?.markPersisted(last);
      });
    }
    return this.chain;
  }

  /** What the outcome's transaction writes: the events not written yet, and the terminal event's number. */
  async drain(): Promise<RunTail> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    await this.chain;
    return { pending, terminalSeq: this.next++ };
  }

  /**
   * The run is over. `final`: the execution as this worker finished (or paused) it (its terminal
   * or pause event goes to the tail); null when someone else ended it, and the tail reads their terminal event from
   * the database like any stream of a run elsewhere.
   */
  close(final: ExecutionRow | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const tail = this.live.localTail(this.row.id);
    if (final && tail && isFinal(final.status)) {
      const type = terminalEventType(final.status);
      tail.append([{ seq: final.eventSeq, type, json: eventJson({ type, data: { execution: executionView(final) } }) }]);
      tail.markPersisted(final.eventSeq);
    } else if (final && tail && final.status === PAUSED_STATUS) {
      const event = pauseEvent(final);
      tail.append([{ seq: final.eventSeq, type: event.type, json: eventJson(event) }]);
      tail.markPersisted(final.eventSeq);
    }
    this.live.unlocal(this.row.id);
  }
}

/** About the size of an event as written (deltas are most of them: their text). */
function approximateSize(event: RunEvent): number {
  return event.type === 'text.delta' ? event.data.delta.length + 64 : JSON.stringify(event.data).length + 64;
}
