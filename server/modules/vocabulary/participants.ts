import type { SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { agents, executions } from '../../../db/schema';

// The run-participant contract (docs/executions.md, "Participants"): what plugs into a run
// without the engine naming it: budgets, usage records, the outbox, approvals and traces. A participant registers with the engine at boot (processes/boot.ts) and
// contributes to three places of every run, each of which stays one statement:
//   - the start: columns read by the statement that starts a run (its verdict read back with the
//     agent: a participant may refuse the run there, before anything is written);
//   - each model call: a guard before it (go on, go on with a smaller answer, or stop the run) and
//     what it used after it;
//   - the moments the lifecycle records (started, finished, paused): writes and signals joined to
//     the statement that records them, so a participant's rows exist exactly when the change does.
// It lives on the ground floor so that the participants (budgets/, usage/, events/) and the engine
// (executions/) both stand on it and neither imports the other.

type ExecutionRow = typeof executions.$inferSelect;
type AgentRow = typeof agents.$inferSelect;

/** Parts of one statement (db/rows.ts `writeAll`): writes (as CTEs) and signals (read by its final select). */
export interface StatementPart {
  writes?: SQL[];
  signals?: SQL[];
  /** A write whose rows a signal reads: the signal is handed the name the statement gives the write. */
  watched?: { write: SQL; signal(alias: string): SQL }[];
  /** Called once the statement's transaction committed (a run's finish, its pause, its event writes): what may leave the process now (exported spans). */
  committed?(): void;
}

/** Whose run it is: what a budget's target, a usage record, an event's scope match. */
export interface RunOwner {
  workspaceId: string;
  environment: string;
  agentId: string;
  /** The API key that started it (null: the dashboard, a schedule). */
  keyId: string | null;
}

/** What the start statement knows when a participant adds its columns. */
export interface StartQuery extends RunOwner {
  /**
   * The run's first model call follows at once: a start in place, or a worker's claim reading
   * the columns for the runs it took (executions/pool.ts).
   */
  inPlace: boolean;
  /** The agent's model, as a column of the statement. */
  model: SQL;
}

/** A participant's part of the start statement: its columns, and the reading of them. */
export interface StartPart<T = unknown> {
  columns: Record<string, SQL>;
  /**
   * Reads the columns back, in the start's transaction: throws an ApiError to refuse the run
   * (the transaction rolls back: nothing is written). Returns what a run started in place carries
   * to its first model call (`RunContext.started`).
   */
  read(values: Record<string, unknown>): T;
}

/** The next model call, as a guard sees it: the prompt, built only when asked (most runs never need it). */
export interface ModelCall {
  prompt(): Promise<{ instructions: string | null; messages: readonly unknown[]; tools: unknown }>;
}

/** The error codes a participant may stop a run with. */
export type RefusalCode = 'budget_exceeded';

/** A guard's answer before a model call: go on (with at most `maxOutputTokens` of answer), or stop the run with an error. */
export type CallVerdict = { maxOutputTokens?: number } | { refusal: { code: RefusalCode; message: string } };

export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A tool the run's model is offered, by the name the model sees. */
export interface OfferedTool {
  /** The agent's tool it comes from (its `name` on the agent): an HTTP tool, or an MCP server. */
  source: string;
  /** MCP tools: the tool as the server lists it. */
  mcpTool?: string;
  /** The JSON Schema of its arguments. */
  parameters: Record<string, unknown>;
}

/** What a participant's part in one run is given when the run's model loop begins. */
export interface RunContext<T = unknown> {
  db: Db;
  row: ExecutionRow;
  /** The agent as the run read it. */
  agent: AgentRow;
  /** The model the run calls (after resolving aliases). */
  model: string;
  /** The tools the model is offered, by the name it sees (none is called when a replay answers them from its record). */
  tools: ReadonlyMap<string, OfferedTool>;
  /** When the run ends, whatever happens (its timeout, and a minute). */
  deadline: Date;
  /** Aborted on a cancel or the timeout. */
  signal: AbortSignal;
  /** What the participant's `StartPart.read` returned, for a run started in place. */
  started?: T;
}

/** What a model call's end reports to an observer. */
export interface CallEnd {
  usage: CallUsage;
  finishReason: string;
  /** What the model answered: its text and its tool calls. */
  output: { text: string; toolCalls: { id: string; name: string; arguments: unknown }[] };
  /** The call failed (the provider's error, as the run's error would say it). */
  error?: { code: string; message: string };
}

/**
 * The run's model loop as it happens, for a participant that records it (traces): synchronous,
 * in memory, never a statement. Times are the observer's own to take.
 */
export interface RunObserver {
  callStarted?(step: number, call: { messages: readonly unknown[] }): void;
  firstToken?(step: number): void;
  callEnded?(step: number, end: CallEnd): void;
  toolStarted?(step: number, call: { id: string; name: string; arguments: unknown }): void;
  toolEnded?(step: number, result: { id: string; name: string; result: unknown; isError: boolean }): void;
}

/** A participant's part in one run, in the process running it. */
export interface RunPart {
  /**
   * Whether a call of this tool waits for a person's decision (approvals: the run pauses after
   * the call's step, docs/approvals.md): the JSON Schema edited arguments must match, or
   * undefined when the call runs at once.
   */
  holds?(tool: string): Record<string, unknown> | undefined;
  beforeCall?(call: ModelCall): Promise<CallVerdict>;
  /** After a model call, with what it used (also when it failed part way); `last`: no further call is coming. */
  afterCall?(usage: CallUsage, last: boolean): Promise<void>;
  observe?: RunObserver;
  /**
   * What the next write of the run's events takes (the recorder's batches: lazily every few
   * seconds, promptly while someone follows the run from another process): spans that ended since.
   */
  atProgress?(): StatementPart | undefined;
  /** What the statement that ends this attempt of the run (its finish, or its pause) takes of this part (asked once, just before it). */
  atFinish?(): StatementPart | undefined;
  /** After the attempt ended however it ended; `finished`: the statement holding `atFinish`'s part committed. */
  settle?(finished: boolean): Promise<void>;
}

/** The moments of a run the lifecycle records in one statement each. */
export type RunMoment = 'started' | 'finished' | 'paused';

export interface RunParticipant<T = unknown> {
  name: string;
  atStart?(query: StartQuery): StartPart<T>;
  /** Its part in a run whose model loop begins (undefined: none in this one). */
  run?(context: RunContext<T>): RunPart | undefined;
  /** Parts of the statement recording a moment of the run; `view`: the execution as the API shows it. */
  at?(moment: RunMoment, row: ExecutionRow, view: object): StatementPart | undefined;
}
