import type { Db } from '../../../db/client';
import { terminalEventType } from './events';
import { eventJson, type Live, type LiveEvent, type LocalRun } from './live';
import { isFinal, PAUSED_STATUS } from '../vocabulary/statuses';
import { pauseEvent } from './pause';
import { executionView, RESERVE, startedSeq, type ExecutionRow, type RunEvent, type RunTail, type SeqEvent } from './lifecycle';
import type { StatementPart } from '../vocabulary/participants';
import { committed } from './participants';
import { appendBatched } from './appender';
import { approximateSize } from './packs';

// The event log of one run, kept by the worker running it (docs/executions.md, "Streams").
// Each event gets its sequence number here and reaches this process's streams at once (the
// run's tail, live.ts). Writing to the database is batched: lazily (every LAZY_MS) while nobody
// follows the run from another process, promptly (EAGER_MS; its first event at once) once someone does, and always
// before the buffer grows past MAX_PENDING_BYTES; what is left is written with the outcome. The
// database keeps `event_seq` RESERVE numbers ahead of what was written, so an outcome written
// by someone else (a cancel) always gets a higher number than any event already sent.

const LAZY_MS = 2_000;
// 100 ms, not 40: the split topology's streams (2 web + 1 worker, 200 at a hosted pace) got
// their first token ~100 ms sooner and cost ~2.3 ms less CPU a run, app and PostgreSQL
// (docs/benchmark.md, "Issue 49, twenty-third session"); a stream from afar gets its tokens
// in batches of about three at 30 ms a token (streams of this process get each at once).
const EAGER_MS = 100;
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
  /** The attempt's end took what was left (`drain`): nothing more is written here. */
  private drained = false;
  /** What the run's participants hand each write (spans that ended): `attach`. */
  private progress: () => StatementPart[] = () => [];

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
    // Followed from afar, the run's first event after `execution.started` (its first token, most
    // often) goes at once, not EAGER_MS later: it is what a stream from afar waits for first.
    if (this.pendingBytes > MAX_PENDING_BYTES || (this.eager && this.all.length === 1)) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.eager ? EAGER_MS : LAZY_MS);
  }

  /** What the run's participants hand each write of its events (participants.ts `partsInProgress`). */
  attach(progress: () => StatementPart[]): void {
    this.progress = progress;
  }

  /**
   * Someone follows the run from another process, or reads its trace: write what is buffered now
   * (a write even with nothing buffered: its signal answers the reader), and promptly from now on.
   */
  follow(): void {
    this.eager = true;
    void this.flush(true);
  }

  /** Someone follows the run from another process since before it started here: written promptly from the start. */
  eagerly(): void {
    this.eager = true;
  }

  /** Something a participant records ended (a span): written promptly while someone follows the run. */
  nudge(): void {
    if (this.eager) this.timer ??= setTimeout(() => void this.flush(), EAGER_MS);
  }

  /** Writes what is buffered (after every earlier batch); `always`: a statement even when nothing is. */
  flush(always = false): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.drained) return this.chain;
    const batch = this.pending;
    const bytes = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    const parts = this.progress();
    if (batch.length > 0 || parts.length > 0 || always) {
      const last = batch.at(-1)?.seq ?? this.written;
      const reserveTo = last + RESERVE;
      // Nothing at all to write (`always`): the row still takes a no-op update, whose signal wakes the reader.
      this.chain = this.chain.then(async () => {
        if (!(await appendBatched(this.db, { id: this.row.id, attempt: this.row.attempt, events: batch, reserveTo: Math.max(reserveTo, this.reserved), parts, written: this.written }, bytes))) return this.lost();
        committed(parts);
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
    this.drained = true;
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
