// What a model can make one run do with its tools, HTTP and MCP alike (docs/executions.md,
// "Tool calls: what a model can make us do"): at most MAX_TOOL_CALLS_PER_STEP calls are made in a
// step, the rest refused; at most TOOL_RESULT_BUDGET_BYTES of tool results are handed to the
// model in the whole execution. A refusal goes back to the model as the tool's result `{error}`.

/**
 * Calls made in one step. Models ask for a handful at once; 10 covers real fan-outs (look up a
 * few orders, a few cities) while a model asking for 200 in one step (20 MB of answers, +500
 * MB of memory) gets 10 calls made and 190 refusals.
 */
export const MAX_TOOL_CALLS_PER_STEP = 10;
/** Bytes of tool results (as JSON) handed to the model in one execution: ten full 100 KB answers. */
export const TOOL_RESULT_BUDGET_BYTES = 1024 * 1024;

const BUDGET = `this execution's budget of tool results (${TOOL_RESULT_BUDGET_BYTES / 1024 / 1024} MiB handed to the model)`;

export type Refusal = { error: string };
const refused = (error: string): Refusal => ({ error });

/** The call count of each step and the bytes handed over so far: one per run, shared by all its tools. */
export class CallLimits {
  private readonly callsInStep = new Map<number, number>();
  private resultBytes = 0;

  /**
   * Counts a call: its refusal, or null when it may be made. Call it before anything is awaited:
   * the first calls of the step, in the model's order, are the ones made. The AI SDK runs a
   * step's calls together, each with the messages the step was sent: their count tells the
   * steps apart (each step adds the previous one's answer to them).
   */
  admit(options: { messages: readonly unknown[] }): Refusal | null {
    const step = options.messages.length;
    const nth = (this.callsInStep.get(step) ?? 0) + 1;
    this.callsInStep.set(step, nth);
    if (nth > MAX_TOOL_CALLS_PER_STEP) {
      return refused(`Not called: at most ${MAX_TOOL_CALLS_PER_STEP} tool calls are made in one step, and this step asked for more. Call fewer tools at once.`);
    }
    if (this.resultBytes >= TOOL_RESULT_BUDGET_BYTES) return refused(`Not called: ${BUDGET} is spent`);
    return null;
  }

  /** What the model gets of a call's output: the output, or a refusal once it would pass the budget. */
  handOver<T>(output: T): T | Refusal {
    const bytes = Buffer.byteLength(JSON.stringify(output) ?? '');
    if (this.resultBytes + bytes > TOOL_RESULT_BUDGET_BYTES) {
      this.resultBytes = TOOL_RESULT_BUDGET_BYTES; // spent: later calls are not made
      return refused(`The tool answered, but its result (${bytes} bytes) would pass ${BUDGET}, so it is not handed over; no more tools are called`);
    }
    this.resultBytes += bytes;
    return output;
  }
}
