'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Agent } from '@/app/_lib/types';
import { labelsAt } from '@/app/_lib/versions';
import { useTRPC, useTRPCClient } from '../providers';
import { EmptyState, ListFooter, LoadError } from '../states';
import { useCan } from '../team/use-can';
import { Alert, Button, Card } from '../ui';
import { useClock } from '../use-clock';
import { useHash } from '../use-hash';
import { FollowLatestDialog, MoveLabelDialog, RemoveLabelDialog } from './label-dialogs';
import { LabelsBar, type LabelAction } from './labels-bar';
import { RollbackDialog } from './rollback-dialog';
import { VersionDiff, type Comparison } from './version-diff';
import { VersionItem } from './version-item';

// The agent's versions on its page (docs/versions.md): its labels, then its versions newest
// first (paged, "Load more"), each with who made it, when, its note, digest and labels; any two
// compared; labels moved, added, removed, production rolled back or following the latest again,
// each confirmed. `#versions` on the page's address brings the section into view, `#version-3`
// that version (older pages are read until it is there), as an execution's page links it.

const PAGE_SIZE = 10;

type Dialog = LabelAction | { type: 'move'; version: number };

function VersionsIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" className="size-6">
      <circle cx="6" cy="6" r="2.5" />
      <circle cx="6" cy="18" r="2.5" />
      <circle cx="18" cy="12" r="2.5" />
      <path d="M6 8.5v7M8.3 7.2c3.5 1 6.2 2.2 7.4 3.6" />
    </svg>
  );
}

export function VersionsCard({ agent }: { agent: Agent }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const can = useCan();
  const now = useClock(false);
  const hash = useHash();
  const cardRef = useRef<HTMLDivElement>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const list = useInfiniteQuery({
    queryKey: [...trpc.agents.versions.pathKey(), 'pages', agent.id],
    queryFn: ({ pageParam, signal }) => client.agents.versions.query({ id: agent.id, limit: PAGE_SIZE, ...(pageParam ? { after: pageParam } : {}) }, { signal }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.hasMore ? last.nextCursor : undefined),
  });
  const versions = list.data?.pages.flatMap((p) => p.data) ?? [];

  // `#version-N`: read older pages until N is in the list; `#versions`: the section into view.
  const wanted = /^version-(\d+)$/.exec(hash)?.[1];
  const wantedVersion = wanted ? Number(wanted) : null;
  const oldest = versions.at(-1)?.version;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  useEffect(() => {
    if (wantedVersion !== null && oldest !== undefined && wantedVersion < oldest && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [wantedVersion, oldest, hasNextPage, isFetchingNextPage, fetchNextPage]);
  const loaded = !list.isPending;
  useEffect(() => {
    if (hash === 'versions' && loaded) cardRef.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [hash, loaded]);

  const close = () => setDialog(null);
  const done = (message: string) => {
    setDialog(null);
    setNotice(message);
  };
  const compareWith = (version: number) => setComparison(version > 1 ? { from: version - 1, to: version } : { from: version, to: agent.version });

  return (
    <Card className="scroll-mt-6 overflow-hidden" id="versions" ref={cardRef} data-testid="versions-card">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <div className="min-w-0">
          <h2 className="font-semibold text-slate-900">Versions</h2>
          <p className="text-xs text-slate-500">Each change of the agent’s behaviour is a version; labels name the one that runs.</p>
        </div>
        {agent.version > 1 && !comparison && (
          <Button variant="secondary" onClick={() => setComparison({ from: agent.version - 1, to: agent.version })} data-testid="compare-versions">
            Compare versions
          </Button>
        )}
      </div>
      {notice && (
        <div className="border-b border-slate-200 px-4 py-2 sm:px-5">
          <p role="status" className="flex items-center justify-between gap-3 text-sm text-emerald-800" data-testid="versions-notice">
            {notice}
            <button type="button" className="text-xs font-medium text-slate-500 hover:text-slate-800" onClick={() => setNotice(null)}>
              Dismiss
            </button>
          </p>
        </div>
      )}
      <LabelsBar agent={agent} canChange={can.build} onAction={setDialog} />
      {comparison && <VersionDiff agentId={agent.id} latest={agent.version} comparison={comparison} onChange={setComparison} onClose={() => setComparison(null)} />}

      {list.isPending ? (
        <div className="h-32 animate-pulse bg-slate-50" aria-busy="true" aria-label="Loading versions" data-testid="versions-loading" />
      ) : list.isError && versions.length === 0 ? (
        <LoadError what="The versions" error={list.error} onRetry={() => void list.refetch()} testId="versions-error" />
      ) : versions.length === 0 ? (
        <EmptyState icon={<VersionsIcon />} title="No versions yet" testId="versions-empty">
          This agent was made before versions: its version 1 is recorded when the service next starts, and each change of its behaviour after that makes
          the next.
        </EmptyState>
      ) : (
        <>
          <ul className="divide-y divide-slate-100" data-testid="versions-list">
            {versions.map((v) => (
              <VersionItem
                key={v.version}
                version={v}
                agentId={agent.id}
                labels={labelsAt(agent.labels, v.version)}
                latest={v.version === agent.version}
                now={now}
                highlighted={v.version === wantedVersion}
                onCompare={agent.version > 1 ? () => compareWith(v.version) : null}
                onMoveLabel={can.build ? () => setDialog({ type: 'move', version: v.version }) : null}
              />
            ))}
          </ul>
          <ListFooter list={list} />
        </>
      )}
      {wantedVersion !== null && wantedVersion > agent.version && (
        <div className="p-4">
          <Alert tone="amber">This agent has no version {wantedVersion}.</Alert>
        </div>
      )}

      {dialog?.type === 'move' && <MoveLabelDialog agent={agent} version={dialog.version} onClose={close} onMoved={(l) => done(`${l} points at v${dialog.version} now.`)} />}
      {dialog?.type === 'add' && <MoveLabelDialog agent={agent} version={null} onClose={close} onMoved={(l) => done(`Label ${l} added.`)} />}
      {dialog?.type === 'remove' && <RemoveLabelDialog agent={agent} label={dialog.label} onClose={close} onRemoved={() => done(`Label ${dialog.label} removed.`)} />}
      {dialog?.type === 'rollback' && <RollbackDialog agent={agent} onClose={close} onMoved={(v) => done(`Production rolled back to v${v}: executions from now on run it.`)} />}
      {dialog?.type === 'follow' && <FollowLatestDialog agent={agent} onClose={close} onMoved={() => done('Production follows the latest version again.')} />}
    </Card>
  );
}
