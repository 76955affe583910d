'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiErrorOf, errorMessage, hasErrorCode } from '@/app/_lib/errors';
import { followExecution, type ExecutionEvent } from '@/app/_lib/execution-stream';
import type { Execution, ExecutionStatus } from '@/app/_lib/types';
import type { AwaitedCall } from '../approvals/use-decide';
import { useEnvironment, useTRPC, useTRPCClient } from '../providers';

// The playground's conversation: each message starts an execution (executions.execute, as POST /v1/agents/:id/execute), whose
// events arrive over Server-Sent Events from /api/dashboard/executions/:id/stream, parsed with
// the server's event contract (execution-stream.ts); the reply grows with every text.delta,
// tool calls and results appear where they happen, and the terminal event settles the turn.
// The conversation id carries over to the next message. While a turn runs, another can be queued
// after it (`ifBusy: "enqueue"`): each turn follows its own execution's stream.
// A tool call that needs approval pauses the turn (`requires_action`, its stream ends): the turn
// shows the calls with their answers, and once they are decided (here, or elsewhere: a paused
// turn reads its execution every few seconds) it follows the run again, after the pause.

/** While a turn is paused, how often its execution is read (decided elsewhere, or expired). */
const PAUSED_POLL_MS = 3_000;

export type Part =
  | { kind: 'text'; step: number; text: string }
  | { kind: 'tool'; step: number; id: string; name: string; arguments: unknown; result?: unknown; isError?: boolean; decision?: PartDecision };

/** How a call that needed approval was decided (`expired`: nobody did in time). */
export interface PartDecision {
  approved: boolean;
  reason: string | null;
  expired: boolean;
}

export interface Turn {
  key: number;
  input: string;
  executionId: string | null;
  status: ExecutionStatus | 'sending';
  parts: Part[];
  error: { code: string; message: string } | null;
  cached: boolean;
  /** The calls awaiting a decision while the turn is paused (`requires_action`). */
  awaiting: AwaitedCall[];
}

/** A paused turn is busy too: its conversation takes the next message after it, and it can be cancelled. */
export const isBusy = (turn: Turn | undefined) => turn !== undefined && ['sending', 'queued', 'running', 'requires_action'].includes(turn.status);

function appendText(parts: Part[], step: number, delta: string): Part[] {
  const last = parts.at(-1);
  if (last?.kind === 'text' && last.step === step) return [...parts.slice(0, -1), { ...last, text: last.text + delta }];
  return [...parts, { kind: 'text', step, text: delta }];
}

/** The turn once its execution is final (the execution's output stands in for deltas never seen, e.g. a cached answer). */
function settle(turn: Turn, execution: Execution): Turn {
  const hasText = turn.parts.some((p) => p.kind === 'text' && p.text);
  const parts = !hasText && execution.output ? appendText(turn.parts, execution.steps.length, execution.output) : turn.parts;
  return { ...turn, status: execution.status, error: execution.error, cached: execution.cached, parts, awaiting: [] };
}

export function usePlayground(agentId: string) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [cancelError, setCancelError] = useState<string | null>(null);
  // The open stream of each turn still running or waiting, by its key.
  const sources = useRef(new Map<number, () => void>());
  // The last event each turn has seen: a stream opened again (after a pause, a lost connection) starts after it.
  const seen = useRef(new Map<number, number>());
  const nextKey = useRef(0);

  const stopAll = useCallback(() => {
    for (const close of sources.current.values()) close();
    sources.current.clear();
  }, []);
  const stop = (key: number) => {
    sources.current.get(key)?.();
    sources.current.delete(key);
  };
  useEffect(() => stopAll, [stopAll]);

  const patch = (key: number, fn: (t: Turn) => Turn) => setTurns((all) => all.map((t) => (t.key === key ? fn(t) : t)));
  const finish = (key: number, execution: Execution) => {
    stop(key);
    patch(key, (t) => settle(t, execution));
    void queryClient.invalidateQueries({ queryKey: trpc.executions.pathKey() });
  };

  const paused = (key: number, execution: Execution) => {
    stop(key);
    patch(key, (t) => ({ ...t, status: 'requires_action', awaiting: execution.requiredAction?.toolCalls ?? [] }));
    void queryClient.invalidateQueries({ queryKey: trpc.executions.pathKey() });
  };
  /** The turn as its execution now is: still paused, going again (followed after the pause), or over. */
  const sync = (key: number, execution: Execution) => {
    if (execution.status === 'requires_action') return paused(key, execution);
    if (execution.status === 'queued' || execution.status === 'running') {
      patch(key, (t) => ({ ...t, status: execution.status, awaiting: [] }));
      return follow(key, execution.id);
    }
    finish(key, execution);
  };
  const recheck = (key: number, executionId: string) => {
    client.executions.get
      .query({ id: executionId })
      .then((execution) => sync(key, execution))
      .catch(() => undefined); // read again by the paused turn's next look
  };

  // A paused turn's calls may be decided elsewhere (the Approvals page, the API) or expire: look every few seconds.
  const pausedTurns = turns
    .filter((t) => t.status === 'requires_action' && t.executionId)
    .map((t) => `${t.key}:${t.executionId}`)
    .join(' ');
  useEffect(() => {
    if (!pausedTurns) return;
    const timer = setInterval(() => {
      for (const entry of pausedTurns.split(' ')) {
        const [key, executionId] = entry.split(':') as [string, string];
        if (sources.current.has(Number(key))) continue; // followed again already
        client.executions.get
          .query({ id: executionId })
          .then((execution) => execution.status !== 'requires_action' && !sources.current.has(Number(key)) && sync(Number(key), execution))
          .catch(() => undefined);
      }
    }, PAUSED_POLL_MS);
    return () => clearInterval(timer);
    // `sync` is read when a look answers; a new one must not restart the timer.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pausedTurns, client]);

  /** Applies one event of the turn's execution. */
  function apply(key: number, event: ExecutionEvent, seq: number) {
    seen.current.set(key, Math.max(seen.current.get(key) ?? 0, seq));
    switch (event.type) {
      case 'execution.started':
        return patch(key, (t) => ({ ...t, status: 'running' }));
      case 'text.delta':
        return patch(key, (t) => ({ ...t, status: 'running', parts: appendText(t.parts, event.step, event.delta) }));
      case 'tool.call':
        return patch(key, (t) => ({ ...t, parts: [...t.parts, { kind: 'tool', step: event.step, id: event.toolCallId, name: event.name, arguments: event.arguments }] }));
      case 'tool.result':
        return patch(key, (t) => ({
          ...t,
          parts: t.parts.map((p) => (p.kind === 'tool' && p.id === event.toolCallId ? { ...p, result: event.result, isError: event.isError } : p)),
        }));
      case 'tool.approval_requested':
        return paused(key, event.execution);
      case 'tool.approval_decided': {
        const decision = { approved: event.approved, reason: event.reason, expired: event.decidedBy.type === 'system' };
        return patch(key, (t) => ({ ...t, parts: t.parts.map((p) => (p.kind === 'tool' && p.id === event.toolCallId ? { ...p, decision } : p)) }));
      }
      default:
        return finish(key, event.execution);
    }
  }

  function follow(key: number, executionId: string) {
    stop(key);
    const handlers = {
      event: (event: ExecutionEvent, seq: number) => apply(key, event, seq),
      // EventSource resumes by itself (after Last-Event-ID); once it gives up, read the execution instead.
      closed: () => {
        if (sources.current.get(key) !== close) return;
        stop(key);
        client.executions.get
          .query({ id: executionId })
          .then((execution) => sync(key, execution))
          .catch((err: unknown) => patch(key, (t) => ({ ...t, status: 'failed', error: { code: 'stream_lost', message: errorMessage(err) } })));
      },
    };
    // After the last event the turn has seen: nothing is shown twice.
    const close = followExecution(executionId, environment, handlers, seen.current.get(key) ?? 0);
    sources.current.set(key, close);
  }

  /** Sends a message; `queue`: the conversation is busy, and it runs after the turns before it. */
  async function send(input: string, queue = false) {
    const key = nextKey.current++;
    setCancelError(null);
    setTurns((all) => [...all, { key, input, executionId: null, status: 'sending', parts: [], error: null, cached: false, awaiting: [] }]);
    try {
      const execution = await client.executions.execute.mutate({
        id: agentId,
        input,
        ...(conversationId ? { conversationId, ...(queue ? { ifBusy: 'enqueue' as const } : {}) } : {}),
      });
      setConversationId(execution.conversationId);
      patch(key, (t) => ({ ...t, executionId: execution.id, status: execution.status }));
      follow(key, execution.id);
    } catch (err) {
      patch(key, (t) => ({ ...t, status: 'failed', error: { code: apiErrorOf(err)?.code ?? 'not_sent', message: errorMessage(err) } }));
    }
  }

  async function cancel() {
    const turn = turns.at(-1);
    if (!turn?.executionId || !isBusy(turn)) return;
    setCancelError(null);
    try {
      finish(turn.key, await client.executions.cancel.mutate({ id: turn.executionId }));
    } catch (err) {
      // It finished meanwhile: its terminal event is on the way.
      if (!hasErrorCode(err, 'execution_not_cancellable')) setCancelError(errorMessage(err));
    }
  }

  function reset() {
    stopAll();
    seen.current.clear();
    setTurns([]);
    setConversationId(null);
    setCancelError(null);
  }

  const last = turns.at(-1);
  // A turn can be queued once the conversation exists and its last turn was accepted (it has its execution).
  const canQueue = isBusy(last) && conversationId !== null && last?.status !== 'sending';
  /** A decision answered: the execution, still paused or going again. */
  const decided = (key: number, execution: Execution) => sync(key, execution);
  return { turns, conversationId, busy: isBusy(last), canQueue, cancelError, send, cancel, reset, decided, recheck };
}
