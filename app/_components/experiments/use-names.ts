'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from '../providers';

/** An environment holds at most 100 datasets: one page lists them all. */
export const DATASETS_LIMIT = 100;

/** The environment's datasets (all of them), for the selects and the names of rows. */
export function useDatasets() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.datasets.list.queryOptions({ limit: DATASETS_LIMIT }), staleTime: 30_000 });
}

/** The datasets' names by id. */
export function useDatasetNames(): ReadonlyMap<string, string> {
  const datasets = useDatasets();
  return useMemo(() => new Map((datasets.data?.data ?? []).map((d) => [d.id, d.name])), [datasets.data]);
}
