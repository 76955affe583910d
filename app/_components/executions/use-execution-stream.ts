'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { followExecution, PAUSE_EVENT_TYPE, type ExecutionEvent } from '@/app/_lib/execution-stream';
import type { Execution } from '@/app/_lib/types';
import { useEnvironment, useTRPC } from '../providers';

/** After the stream gave up on a run that is still active: wait this long before following it again. */
const RETRY_MS = 2_000;

/** What a running execution has said so far (its events since the page started following it). */
export interface Live {
  text: string;
  tools: { id: string; name: string; done: boolean; isError: boolean }[];
}
const NOTHING: Live = { text: '', tools: [] };

function applyLive(live: Live, event: ExecutionEvent): Live {
  switch (event.type) {
    case 'text.delta':
      return { ...live, text: live.text + event.delta };
    case 'tool.call':
      return { ...live, tools: [...live.tools, { id: event.toolCallId, name: event.name, done: false, isError: false }] };
    case 'tool.result':
      return { ...live, tools: live.tools.map((t) => (t.id === event.toolCallId ? { ...t, done: true, isError: event.isError } : t)) };
    default:
      return live;
  }
}

const isMoving = (e: Execution | undefined) => e?.status === 'queued' || e?.status === 'running';

/**
 * Follows a queued or running execution's event stream (no polling): the started and terminal
 * events carry the execution, which becomes the page's data; text and tool events show as they
 * happen. When the stream gives up before the end, the execution is read once, and followed
 * again (after the last event seen) while it is still active.
 *
 * A paused run (`requires_action`) is not followed: nothing happens until its calls are decided,
 * and a decision (this page's, or one the page reads later) queues it again. A pause event ends
 * the stream; the execution is then read, since from the start a resumed run's stream replays
 * its past pauses: when it went on, it is followed again after that pause.
 */
export function useExecutionStream(execution: Execution | undefined, onEnd: () => void): Live {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { environment } = useEnvironment();
  const [live, setLive] = useState<{ id: string; state: Live }>({ id: '', state: NOTHING });
  // Where the next stream starts (after this event), and a count to open it again.
  const [from, setFrom] = useState({ id: '', after: 0, attempt: 0 });
  const id = execution?.id;
  const following = isMoving(execution);
  const after = from.id === id ? from.after : 0;
  const attempt = from.id === id ? from.attempt : 0;

  useEffect(() => {
    if (!id || !following) return;
    const queryKey = trpc.executions.get.queryKey({ id });
    let retry: ReturnType<typeof setTimeout> | undefined;
    let left = false;
    let last = after;
    const again = (seq: number) => setFrom((f) => ({ id, after: seq, attempt: (f.id === id ? f.attempt : 0) + 1 }));
    const readAgain = () => queryClient.refetchQueries({ queryKey, exact: true }).then(() => queryClient.getQueryData<Execution>(queryKey));
    const stop = followExecution(
      id,
      environment,
      {
        event: (event, seq) => {
          last = Math.max(last, seq);
          if (event.type === PAUSE_EVENT_TYPE) {
            void readAgain().then((now) => {
              if (left) return;
              if (isMoving(now)) again(seq);
              else onEnd();
            });
            return;
          }
          if ('execution' in event) {
            const known = queryClient.getQueryData<Execution>(queryKey);
            // The replayed start of a stretch before a pause knows fewer steps than the page does.
            const stale = event.type === 'execution.started' && known !== undefined && event.execution.steps.length < known.steps.length;
            if (!stale) queryClient.setQueryData(queryKey, event.execution);
            if (event.type !== 'execution.started') onEnd();
            // Everything before the started event was the previous attempt's (none) or a replay: start afresh.
            if (event.type === 'execution.started') setLive({ id, state: NOTHING });
            return;
          }
          setLive((l) => ({ id, state: applyLive(l.id === id ? l.state : NOTHING, event) }));
        },
        closed: () => {
          void readAgain().then((now) => {
            if (!left && isMoving(now)) retry = setTimeout(() => again(last), RETRY_MS);
          });
        },
      },
      after,
    );
    return () => {
      left = true;
      stop();
      clearTimeout(retry);
    };
    // `onEnd` is read when the run ends; a new one must not restart the stream.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, following, environment, after, attempt, queryClient, trpc]);

  return live.id === id ? live.state : NOTHING;
}
