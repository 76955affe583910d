import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';

// The stream parts of a model's answer without a WHATWG stream (docs/benchmark.md, "Issue 49,
// twenty-first session"). The AI SDK reads a provider's parts through a ReadableStream piped
// through its own TransformStream and then an identity one: at a hosted model's pace every part
// is its own read, and those pipes' promises were ~10 % of a busy embedded server's CPU. The
// OpenAI-compatible client (compatible.ts) writes its parts here instead, and the run's loop
// reads them with one promise a part (model-call.ts).

type Part = LanguageModelV4StreamPart;

export class PartQueue implements AsyncIterable<Part> {
  private readonly parts: Part[] = [];
  private waiting: { resolve: (r: IteratorResult<Part>) => void; reject: (err: unknown) => void } | null = null;
  private ended = false;
  private failure: { error: unknown } | null = null;

  /** `cancel`: called when the reader stops before the end (the answer's connection is let go). */
  constructor(private readonly cancel: () => void) {}

  enqueue(part: Part): void {
    if (this.ended) return;
    const w = this.waiting;
    if (w) {
      this.waiting = null;
      w.resolve({ value: part, done: false });
    } else this.parts.push(part);
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    const w = this.waiting;
    this.waiting = null;
    w?.resolve({ value: undefined, done: true });
  }

  error(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = { error };
    const w = this.waiting;
    this.waiting = null;
    w?.reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<Part> {
    return {
      next: () => {
        if (this.parts.length > 0) return Promise.resolve({ value: this.parts.shift()!, done: false });
        if (this.failure) return Promise.reject(this.failure.error);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
      return: () => {
        if (!this.ended) {
          this.ended = true;
          this.parts.length = 0;
          this.cancel();
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
