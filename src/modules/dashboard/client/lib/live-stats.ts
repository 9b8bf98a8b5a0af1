/**
 * A statistics page's numbers with live clicks: the statistics (read again quietly at each
 * fallback poll), the live clicks, and for the statistics shown the mark of what they already
 * count (`LiveClicks.mark()` when they arrived), so that the totals add only what came after.
 */
import { useRef } from 'preact/hooks';
import type { Click } from '../api/types';
import { type Resource, useQuietRefresh, useResource } from './hooks';
import { type LiveClicks, useLiveClicks } from './live-clicks';

export interface LiveStats<T> {
  stats: Resource<T>;
  live: LiveClicks;
  liveMark: number | undefined;
}

/** `key`: what the statistics were asked for (the window); `load` reads them. */
export function useLiveStats<T extends object>(
  load: () => Promise<T>,
  key: string,
  linkId: string | null,
  poll: () => Promise<Click[]>,
): LiveStats<T> {
  const marks = useRef(new WeakMap<object, number>());
  const live = useRef<LiveClicks | null>(null);
  const marked = async () => {
    const data = await load();
    marks.current.set(data, live.current?.mark() ?? 0);
    return data;
  };
  const stats = useResource(marked, [key]);
  // Without the stream, the numbers are read again at each poll (so they need no adding up).
  const refresh = useQuietRefresh(stats, marked, key);
  live.current = useLiveClicks({ linkId, poll, onPoll: refresh });
  return { stats, live: live.current, liveMark: stats.data ? marks.current.get(stats.data) : undefined };
}
