'use client';
import { useState } from 'react';

/**
 * Keyset pagination on the client: a stack of the cursors that opened each page, so "newer" goes
 * back exactly and "older" follows the API's next cursor. Never an offset.
 */
export type CursorPages = ReturnType<typeof useCursorPages>;

export function useCursorPages() {
  const [stack, setStack] = useState<(string | null)[]>([null]);
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    hasPrev: stack.length > 1,
    next: (cursor: string) => setStack((s) => [...s, cursor]),
    prev: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
    reset: () => setStack([null]),
  };
}
