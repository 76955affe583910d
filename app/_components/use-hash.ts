'use client';

import { useEffect, useRef, useSyncExternalStore } from 'react';

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

/** A list item's ref that scrolls it to the middle of the screen when it becomes the one the URL's fragment names. */
export function useScrolledTo<T extends HTMLElement>(highlighted: boolean) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [highlighted]);
  return ref;
}
