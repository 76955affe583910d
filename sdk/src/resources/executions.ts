import type { RequestOptions } from '../core.js';
import type { PagedList } from '../pagination.js';
import { ExecutionStream } from '../stream.js';
import type { Answer, Body, Conversation, ConversationSummary, Execution, QueryOf } from '../types.js';
import { followStream, Resource, runOrStream, seg } from './base.js';

type ApproveParams = Omit<Body<'executions-approvals'>, 'wait' | 'stream'>;
type ReplayParams = Omit<Body<'executions-replay'>, 'wait' | 'stream'>;

/** `/v1/executions` (scope agents:execute; reads agents:read). */
export class Executions extends Resource {
  list(params?: QueryOf<'executions-list'>, options?: RequestOptions): PagedList<Execution> {
    return this.paged<Execution>('executions-list', '/executions', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<'executions-get'>> {
    return this.get('executions-get', `/executions/${seg(id)}`, undefined, options);
  }

  /** The run's trace: its spans (model calls, tool calls, waits) with tokens, cost and OpenTelemetry GenAI attributes. */
  trace(id: string, options?: RequestOptions): Promise<Answer<'executions-trace'>> {
    return this.get('executions-trace', `/executions/${seg(id)}/trace`, undefined, options);
  }

  /** Cancels a queued, running or paused execution (a final one: `ConflictError`, `execution_not_cancellable`). */
  cancel(id: string, options?: RequestOptions): Promise<Answer<'executions-cancel'>> {
    return this.post('executions-cancel', `/executions/${seg(id)}/cancel`, undefined, options);
  }

  /**
   * Decides tool calls awaiting approval (`requires_action`): resolves to the execution, or with
   * `wait: true` once it is final or paused again; `stream: true` gives its events from the
   * decisions on, resumable as `stream` is.
   */
  approve(id: string, params: ApproveParams & { stream: true; wait?: false }, options?: RequestOptions): ExecutionStream;
  approve(id: string, params: ApproveParams & { wait?: boolean; stream?: false }, options?: RequestOptions): Promise<Execution>;
  approve(id: string, params: Body<'executions-approvals'>, options?: RequestOptions): Promise<Execution> | ExecutionStream;
  approve(id: string, params: Body<'executions-approvals'>, options?: RequestOptions): Promise<Execution> | ExecutionStream {
    return runOrStream(this.transport, `/executions/${seg(id)}/approvals`, params, options, id);
  }

  /**
   * Replays a finished execution: a new one of the same agent (`replayOf`) whose steps before
   * `fromStep` are the original's as recorded (no model call, no tool call, no cost) and the rest
   * run live with `input`, `instructions` or `model` overridden. With `tools: "recorded"` (the
   * default) no tool is ever called. Resolves like `agents.execute`: at once, with `wait: true`
   * once final, or with `stream: true` as its events.
   */
  replay(id: string, params: ReplayParams & { stream: true; wait?: false }, options?: RequestOptions): ExecutionStream;
  replay(id: string, params: ReplayParams & { wait?: boolean; stream?: false }, options?: RequestOptions): Promise<Execution>;
  replay(id: string, params: Body<'executions-replay'>, options?: RequestOptions): Promise<Execution> | ExecutionStream;
  replay(id: string, params: Body<'executions-replay'>, options?: RequestOptions): Promise<Execution> | ExecutionStream {
    return runOrStream(this.transport, `/executions/${seg(id)}/replay`, params, options);
  }

  /**
   * The execution's events — from the start, or after `after` (an event's sequence number) —
   * live until it ends or pauses for approval; a finished execution's are replayed. Resumes after a
   * dropped connection (`Last-Event-ID`) without losing or repeating an event.
   */
  stream(id: string, params: { after?: string | number } = {}, options?: RequestOptions): ExecutionStream {
    const stream = new ExecutionStream(({ lastEventId }) => followStream(this.transport, id, lastEventId, options ?? {}), {
      maxReconnects: options?.maxRetries ?? 5,
      signal: options?.signal,
      executionId: id,
      statusOf: (eid) => this.transport.statusOf(eid, options),
    });
    if (params.after !== undefined) stream.lastEventId = String(params.after);
    return stream;
  }
}

/** `/v1/conversations` (scope agents:execute). */
export class Conversations extends Resource {
  list(params?: QueryOf<'conversations-list'>, options?: RequestOptions): PagedList<ConversationSummary> {
    return this.paged<ConversationSummary>('conversations-list', '/conversations', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Conversation> {
    return this.get('conversations-get', `/conversations/${seg(id)}`, undefined, options);
  }

  delete(id: string, options?: RequestOptions): Promise<Answer<'conversations-delete'>> {
    return this.del('conversations-delete', `/conversations/${seg(id)}`, options);
  }
}
