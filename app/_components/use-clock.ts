'use client';

import { useEffect, useState } from 'react';

/** The time, once a second while `ticking` (how long a run has been going, how long a call may still wait, without asking the server). */
export function useClock(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
