import type { Metadata } from 'next';
import { BudgetsView } from '@/app/_components/budgets/budgets-view';

export const metadata: Metadata = { title: 'Budgets' };

export default function BudgetsPage() {
  return <BudgetsView />;
}
