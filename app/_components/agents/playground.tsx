'use client';

import Link from 'next/link';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Alert, Button, Card, Spinner } from '../ui';
import { Transcript } from './transcript';
import { usePlayground } from './use-playground';

// Talk to the agent: each message is a real execution in the selected environment, streamed
// as it runs. Enter sends, Shift+Enter starts a new line.
export function Playground({ agentId, agentName, hasTools }: { agentId: string; agentName: string; hasTools: boolean }) {
  const { turns, conversationId, busy, canQueue, cancelError, send, cancel, reset, decided, recheck } = usePlayground(agentId);
  const [input, setInput] = useState('');
  const [cancelling, setCancelling] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const field = useRef<HTMLTextAreaElement>(null);

  // Follow the reply as it grows, unless the user scrolled up to read.
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 120) el.scrollTop = el.scrollHeight;
  }, [turns]);

  // While a turn runs, a message is queued after it (the conversation's line, up to 10 waiting).
  function submit(e?: FormEvent) {
    e?.preventDefault();
    const text = input.trim();
    if (!text || (busy && !canQueue)) return;
    setInput('');
    void send(text, busy);
  }
  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) submit(e);
  }
  async function onCancel() {
    setCancelling(true);
    await cancel();
    setCancelling(false);
  }

  return (
    <Card className="flex flex-col overflow-hidden" data-testid="playground">
      <div className="flex items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <div className="min-w-0 flex-1">
          <h2 className="font-semibold text-slate-900">Playground</h2>
          <p className="truncate text-xs text-slate-500" data-testid="playground-conversation">
            {conversationId ? (
              <>
                Conversation{' '}
                <Link href={`/dashboard/conversations/${conversationId}`} className="font-mono text-indigo-600 hover:text-indigo-500">
                  {conversationId}
                </Link>
              </>
            ) : (
              'A new conversation starts with your first message.'
            )}
          </p>
        </div>
        <Button
          variant="ghost"
          className="-mr-2 shrink-0"
          onClick={() => {
            reset();
            field.current?.focus();
          }}
          disabled={busy || turns.length === 0}
          data-testid="new-conversation"
        >
          New conversation
        </Button>
      </div>

      <div ref={scroller} className="max-h-[32rem] min-h-48 overflow-y-auto bg-slate-50/60 px-4 py-5 sm:px-5">
        {turns.length === 0 ? (
          <div className="flex h-full min-h-40 flex-col items-center justify-center text-center text-sm text-slate-500" data-testid="playground-empty">
            <p className="font-medium text-slate-700">Send a message to run {agentName}.</p>
            <p className="mt-1 max-w-sm">
              Each message is a real execution: you will see the answer stream in{hasTools ? ', and the tool calls it makes' : ''}.
            </p>
          </div>
        ) : (
          <Transcript turns={turns} handlers={{ onDecided: decided, onStale: recheck }} />
        )}
      </div>

      <form onSubmit={submit} className="space-y-2 border-t border-slate-200 p-3 sm:p-4">
        {cancelError && <Alert>{cancelError}</Alert>}
        <label htmlFor="playground-input" className="sr-only">
          Message
        </label>
        <textarea
          ref={field}
          id="playground-input"
          rows={2}
          value={input}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder={`Message ${agentName}…`}
          maxLength={100_000}
          className="block w-full resize-none rounded-md border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-slate-300 outline-none ring-inset placeholder:text-slate-400 focus:ring-2 focus:ring-indigo-600"
          data-testid="playground-input"
        />
        <div className="flex items-center justify-between gap-3">
          <p className="text-xs text-slate-500 max-sm:hidden">Enter to send, Shift+Enter for a new line.</p>
          <div className="ml-auto flex gap-2">
            {busy && (
              <Button variant="secondary" onClick={() => void onCancel()} disabled={cancelling || !turns.at(-1)?.executionId} data-testid="playground-cancel">
                {cancelling && <Spinner />}
                Cancel run
              </Button>
            )}
            {busy ? (
              <Button type="submit" disabled={!canQueue || !input.trim()} data-testid="playground-queue" title="Runs once the current turn has finished">
                Queue after current turn
              </Button>
            ) : (
              <Button type="submit" disabled={!input.trim()} data-testid="playground-send">
                Send
              </Button>
            )}
          </div>
        </div>
      </form>
    </Card>
  );
}
