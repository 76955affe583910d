'use client';

import { useQuery } from '@tanstack/react-query';
import { errorMessage } from '@/app/_lib/errors';
import type { Agent } from '@/app/_lib/types';
import { labelMovesOf, productionBefore, PRODUCTION, type VersionStamp } from '@/app/_lib/versions';
import { Modal } from '../modal';
import { useTRPCClient } from '../providers';
import { useCan } from '../team/use-can';
import { Alert, Button, Spinner } from '../ui';
import { ProductionWarning } from './label-dialogs';
import { useMoveLabel } from './use-labels';

// "Roll back": production goes back to the version it pointed at before its last change — a
// move by hand, or a new version saved while it followed the latest. Owners and admins read
// production's moves in the audit log, and with when each version was made that history says
// which version that was (app/_lib/versions.ts, productionBefore). Others cannot read the audit
// log, nor can anyone beyond what it keeps: then the version just below the one production runs.
// Either way the confirmation names the version it will run before anything moves.

/** The most pages of 100 read of each history (audit records, versions): past that, the fallback. */
const MAX_PAGES = 5;

interface Target {
  version: number;
  /** From the history (`true`), or the version below production's (the fallback). */
  fromHistory: boolean;
}

type Client = ReturnType<typeof useTRPCClient>;

/** Reads every page a list gives (at most MAX_PAGES). */
async function allPages<T>(page: (after: string | undefined) => Promise<{ data: T[]; hasMore: boolean; nextCursor?: string }>): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const got = await page(after);
    out.push(...got.data);
    if (!got.hasMore || !got.nextCursor) break;
    after = got.nextCursor;
  }
  return out;
}

/** The version production pointed at before, from the audit log; null when it cannot be told. */
async function fromHistory(client: Client, agent: Agent, signal: AbortSignal): Promise<number | null> {
  const [events, versions] = await Promise.all([
    allPages((after) => client.audit.list.query({ targetId: agent.id, action: 'agent.label_moved', limit: 100, ...(after ? { after } : {}) }, { signal })),
    allPages((after) => client.agents.versions.query({ id: agent.id, limit: 100, ...(after ? { after } : {}) }, { signal })),
  ]);
  const stamps: VersionStamp[] = versions.map((v) => ({ version: v.version, createdAt: v.createdAt }));
  return productionBefore(agent.labels[PRODUCTION]!, labelMovesOf(events), stamps);
}

export function RollbackDialog({ agent, onClose, onMoved }: { agent: Agent; onClose: () => void; onMoved: (version: number) => void }) {
  const client = useTRPCClient();
  const can = useCan();
  const move = useMoveLabel(agent.id);
  const current = agent.labels[PRODUCTION]!;
  const below = current > 1 ? current - 1 : null;
  const history = useQuery({
    queryKey: ['agent-rollback', agent.id, current, agent.version],
    queryFn: ({ signal }) => fromHistory(client, agent, signal),
    enabled: can.administer,
    retry: false,
    gcTime: 0,
  });

  const resolving = can.administer && history.isPending;
  const found = history.data ?? null;
  const target: Target | null = found !== null ? { version: found, fromHistory: true } : below !== null ? { version: below, fromHistory: false } : null;
  const version = target?.version;

  const ready = version !== undefined && !resolving;
  // After a roll back, the version production ran before is the newer one it was rolled back from.
  const forward = version !== undefined && version > current;
  return (
    <Modal
      title={!ready ? 'Roll production back?' : forward ? `Put production back on v${version}?` : `Roll production back to v${version}?`}
      onClose={onClose}
      dismissible={!move.isPending}
      testId="rollback-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={move.isPending}>
            Cancel
          </Button>
          <Button
            onClick={() => {
              if (version !== undefined && !resolving) move.mutate({ id: agent.id, label: PRODUCTION, version }, { onSuccess: () => onMoved(version) });
            }}
            disabled={!ready || move.isPending}
            data-testid="rollback-confirm"
          >
            {(move.isPending || resolving) && <Spinner />}
            {!ready ? 'Roll back' : forward ? `Back to v${version}` : `Roll back to v${version}`}
          </Button>
        </>
      }
    >
      <div className="space-y-3 text-sm text-slate-700">
        {move.error != null && <Alert data-testid="rollback-error">{errorMessage(move.error)}</Alert>}
        {resolving ? (
          <p className="flex items-center gap-2 text-slate-600" data-testid="rollback-resolving">
            <Spinner /> Finding the version production ran before…
          </p>
        ) : !target ? (
          <p data-testid="rollback-none">Production runs v{current}, the agent’s first version: there is no earlier version to roll back to.</p>
        ) : (
          <>
            <p data-testid="rollback-summary">
              Production runs <strong className="font-semibold">v{current}</strong> now. Rolling back moves it to{' '}
              <strong className="font-semibold">v{target.version}</strong>
              {target.fromHistory
                ? `, the version it ran before its last change${forward ? ' moved it back' : ''}.`
                : `, the version before v${current}.`}
            </p>
            {!target.fromHistory && can.administer && (
              <p className="text-xs text-slate-500" data-testid="rollback-fallback">
                {history.isError
                  ? 'The audit log could not be read to tell which version production ran before.'
                  : 'The audit log does not tell which version production ran before (it keeps a year).'}
              </p>
            )}
            <ProductionWarning version={target.version} />
            <p className="text-xs text-slate-500">Any other version: “Move label here” on it.</p>
          </>
        )}
      </div>
    </Modal>
  );
}
