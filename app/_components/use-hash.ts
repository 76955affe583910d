'use client';

import { useSyncExternalStore } from 'react';

/** The URL's fragment without its `#`, kept up to date (no fragment on the server). */
export function useHash(): string {
  return useSyncExternalStore(
    (changed) => {
      window.addEventListener('hashchange', changed);
      return () => window.removeEventListener('hashchange', changed);
    },
    () => window.location.hash.slice(1),
    () => '',
  );
}
