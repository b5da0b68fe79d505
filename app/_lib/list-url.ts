'use client';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';

/**
 * A list's filters and page, kept in the URL: Back returns to the previous filters or page, and a
 * shared link opens the same view. The page is the stack of keyset cursors that led to it
 * (`pages=c1,c2`), so "newer" steps back exactly and no offset is ever used.
 */
export function useListUrl<K extends string>(keys: readonly K[]) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? ''])) as Record<K, string>;
  const stack = (params.get('pages') ?? '').split(',').filter(Boolean);

  const go = (next: URLSearchParams) => {
    const qs = next.toString();
    router.push(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };
  const withValues = (patch: Partial<Record<K, string>>, pages: string[]) => {
    const next = new URLSearchParams();
    for (const k of keys) {
      const v = (k in patch ? patch[k] : values[k]) ?? '';
      if (v) next.set(k, v);
    }
    if (pages.length) next.set('pages', pages.join(','));
    return next;
  };
  return {
    values,
    cursor: stack.length ? stack[stack.length - 1] : null,
    page: stack.length + 1,
    hasPrev: stack.length > 0,
    /** New filters start again at the first page. */
    set: (patch: Partial<Record<K, string>>) => go(withValues(patch, [])),
    next: (cursor: string) => go(withValues({}, [...stack, cursor])),
    prev: () => go(withValues({}, stack.slice(0, -1))),
    /** The filters alone, as a query string (for the CSV export of the same range). */
    filterQuery: () => withValues({}, []).toString(),
  };
}
