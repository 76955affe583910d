import type { Metadata } from 'next';
import { AuditView } from '@/app/_components/audit/audit-view';
import { auditSearchQuery, parseAuditSearch } from '@/app/_lib/audit-filters';

export const metadata: Metadata = { title: 'Audit log' };

type Search = Record<string, string | string[] | undefined>;

/** The filters in the address (`?action=key.created&from=2026-11-01`), so a filtered log can be linked to. */
export default async function AuditPage({ searchParams }: { searchParams: Promise<Search> }) {
  const initial = parseAuditSearch(await searchParams);
  return <AuditView initial={initial} key={auditSearchQuery(initial)} />;
}
