import type { Metadata } from 'next';
import { CompareView } from '@/app/_components/experiments/compare-view';

export const metadata: Metadata = { title: 'Compare experiments' };

type Search = Record<string, string | string[] | undefined>;

/** `?a=<experiment>&b=<experiment>`: the two side by side, b against a. */
export default async function ComparePage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const one = (v: string | string[] | undefined) => (typeof v === 'string' ? v : '');
  return <CompareView a={one(search.a)} b={one(search.b)} />;
}
