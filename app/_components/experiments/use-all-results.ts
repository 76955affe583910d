'use client';

import { useQuery } from '@tanstack/react-query';
import type { ExperimentResult } from '@/app/_lib/types';
import { useTRPC, useTRPCClient } from '../providers';

/** The most items of one experiment a page reads (a dataset holds up to 10,000; most hold far fewer). */
export const RESULTS_CAP = 2_000;
const PAGE = 100;
/** While the experiment runs, how often its results are read again. */
const LIVE_MS = 3_000;

export interface AllResults {
  rows: ExperimentResult[];
  /** More items than RESULTS_CAP: the rest were not read. */
  truncated: boolean;
}

/** The query key of an experiment's results as this hook reads them (to read them again when it ends). */
export const allResultsKey = (trpc: ReturnType<typeof useTRPC>, id: string) => [...trpc.experiments.results.pathKey(), 'all', id] as const;

/** Every item's results of an experiment, in the dataset's order, paged through (`after`/`nextCursor`) up to RESULTS_CAP; read again every few seconds while `live`. */
export function useAllResults(id: string, { live, enabled = true }: { live: boolean; enabled?: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: allResultsKey(trpc, id),
    queryFn: async ({ signal }): Promise<AllResults> => {
      const rows: ExperimentResult[] = [];
      let after: string | undefined;
      let more = true;
      while (more && rows.length < RESULTS_CAP) {
        const page = await client.experiments.results.query({ id, limit: PAGE, ...(after ? { after } : {}) }, { signal });
        rows.push(...page.data);
        more = page.hasMore && page.nextCursor !== undefined;
        after = page.nextCursor;
      }
      return { rows: rows.slice(0, RESULTS_CAP), truncated: more || rows.length > RESULTS_CAP };
    },
    enabled,
    refetchInterval: live ? LIVE_MS : false,
  });
}
