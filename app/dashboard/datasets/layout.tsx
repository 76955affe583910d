import type { ReactNode } from 'react';
import { EvalsTabs } from '@/app/_components/experiments/evals-tabs';

/** The evals pages (experiments, datasets): their tabs above each. */
export default function EvalsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <EvalsTabs />
      {children}
    </>
  );
}
