import type { LanguageModelUsage } from 'ai';
import type { StoredStep } from '../../db/schema';
import type { RunEvent } from './status';

// Buffers a run's events and appends them in small batches (one statement and one NOTIFY per
// batch, every FLUSH_MS at most), so a reply streamed token by token costs a few writes, not one
// per token. Consecutive text deltas of one step are merged. Batches are written in order.

const FLUSH_MS = 25;

export class Recorder {
  private buffer: RunEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();

  /** `write` appends a batch (false: the run is no longer ours → `lost`). */
  constructor(
    private readonly write: (events: RunEvent[]) => Promise<boolean>,
    private readonly lost: () => void,
  ) {}

  async push(event: RunEvent): Promise<void> {
    const prev = this.buffer.at(-1);
    if (event.type === 'text.delta' && prev?.type === 'text.delta' && prev.data.step === event.data.step) {
      prev.data = { ...prev.data, delta: `${prev.data.delta as string}${event.data.delta as string}` };
    } else {
      this.buffer.push(event);
    }
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is buffered (after every earlier batch). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length > 0) {
      this.chain = this.chain.then(async () => {
        if (!(await this.write(batch))) this.lost();
      });
    }
    return this.chain;
  }

  /** The events not written yet, once every earlier batch is (to write with the outcome). */
  async drain(): Promise<RunEvent[]> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const rest = this.buffer;
    this.buffer = [];
    await this.chain;
    return rest;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  static newStep(index: number): StoredStep {
    const at = new Date().toISOString();
    return { index, text: '', toolCalls: [], toolResults: [], finishReason: 'unknown', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, startedAt: at, completedAt: at };
  }

  static endStep(step: StoredStep, finishReason: string, usage: LanguageModelUsage): StoredStep {
    const inputTokens = usage.inputTokens ?? 0;
    const outputTokens = usage.outputTokens ?? 0;
    return { ...step, finishReason, usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }, completedAt: new Date().toISOString() };
  }
}
