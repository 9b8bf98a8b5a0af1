/**
 * Clicks as they are recorded: the API's live stream (`GET /api/v1/events`, one link's with
 * `?link=`), read with the session cookie. When the stream fails or closes (refused, a proxy
 * that buffers, the server restarting), the page's own `poll` runs every POLL_MS instead and
 * the stream is tried again every RETRY_MS; reconnecting resumes after the last event seen.
 * A stream refused for too many open streams (other tabs hold them) shows as `refused`.
 *
 * Each click is kept once (by id), with whether the stream brought it and the order it arrived
 * in: the pages use that to add only what their loaded numbers do not already count. Human
 * clicks only: the stream carries no bot hits unless asked, and polled bot hits are left out to
 * match.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Click } from '../api/types';

export const POLL_MS = 5000;
const RETRY_MS = 30_000;
/** What the pages keep of the clicks they were given (more than they show, for counting). */
const KEPT = 500;

/** `refused`: polling because the server turned the stream down for too many open streams (429). */
export type LiveStatus = 'connecting' | 'live' | 'polling' | 'refused';

export interface ReceivedClick {
  click: Click;
  /** Brought by the stream (a polled click is for the feed only: the page polls its numbers too). */
  streamed: boolean;
  /** When it arrived, in the order of arrivals (see `mark`). */
  arrival: number;
}

export interface LiveClicks {
  status: LiveStatus;
  /** Newest first. */
  received: ReceivedClick[];
  /** The arrivals so far: numbers loaded now count every streamed click with `arrival <= mark()`. */
  mark(): number;
}

interface ClicksEvent {
  data: { clicks: Click[] };
}

export interface LiveOptions {
  /** Only this link's clicks; null for the whole workspace. */
  linkId: string | null;
  /** The fallback: the latest clicks (any order), or nothing when the page has none to ask for. */
  poll(): Promise<Click[]>;
  /** Runs at each fallback poll as well (a page refreshing its own numbers). */
  onPoll?(): void;
}

function merged(current: ReceivedClick[], incoming: ReceivedClick[]): ReceivedClick[] {
  const seen = new Set(current.map((r) => r.click.id));
  const fresh = incoming.filter((r) => !r.click.bot && !seen.has(r.click.id) && seen.add(r.click.id));
  if (fresh.length === 0) return current;
  return [...fresh, ...current]
    .sort((a, b) => b.click.timestamp - a.click.timestamp || b.click.id - a.click.id)
    .slice(0, KEPT);
}

export function useLiveClicks({ linkId, poll, onPoll }: LiveOptions): LiveClicks {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [received, setReceived] = useState<ReceivedClick[]>([]);
  const calls = useRef({ poll, onPoll });
  calls.current = { poll, onPoll };
  const arrivals = useRef(0);
  const mark = useCallback(() => arrivals.current, []);

  useEffect(() => {
    setReceived([]);
    setStatus('connecting');
    let stream: EventSource | null = null;
    let lastEventId = '';
    let pollTimer: ReturnType<typeof setInterval> | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | null = null;
    let ended = false;
    const add = (clicks: Click[], streamed: boolean) => {
      const arrival = ++arrivals.current;
      const mine = linkId === null ? clicks : clicks.filter((c) => c.linkId === linkId);
      if (mine.length > 0)
        setReceived((current) =>
          merged(
            current,
            mine.map((click) => ({ click, streamed, arrival })),
          ),
        );
    };
    const pollOnce = () => {
      calls.current.onPoll?.();
      calls.current.poll().then(
        (clicks) => !ended && add(clicks, false),
        // A failed poll is tried again at the next tick; an ended session signs out on its own.
        () => {},
      );
    };
    /**
     * An EventSource tells nothing of why it failed: asked once more with fetch, a stream that
     * never opened says whether it was refused for too many open streams (then let go at once).
     */
    const whyRefused = (url: string) => {
      fetch(url, { credentials: 'same-origin', headers: { accept: 'text/event-stream' } }).then(
        (res) => {
          void res.body?.cancel();
          if (!ended && res.status === 429) setStatus((now) => (now === 'polling' ? 'refused' : now));
        },
        () => {},
      );
    };
    const fallBack = (neverOpened: boolean, url: string) => {
      stream?.close();
      stream = null;
      if (ended) return;
      setStatus('polling');
      if (neverOpened) whyRefused(url);
      if (pollTimer === null) {
        pollOnce();
        pollTimer = setInterval(pollOnce, POLL_MS);
      }
      if (retryTimer === null) retryTimer = setTimeout(connect, RETRY_MS);
    };
    const connect = () => {
      retryTimer = null;
      if (ended) return;
      const query = new URLSearchParams();
      if (linkId !== null) query.set('link', linkId);
      if (lastEventId) query.set('lastEventId', lastEventId);
      const search = query.size > 0 ? `?${query}` : '';
      const url = `/api/v1/events${search}`;
      const source = new EventSource(url, { withCredentials: true });
      stream = source;
      let opened = false;
      source.onopen = () => {
        opened = true;
        if (ended || stream !== source) return;
        setStatus('live');
        if (pollTimer !== null) clearInterval(pollTimer);
        pollTimer = null;
      };
      source.onerror = () => {
        if (stream === source) fallBack(!opened, url);
      };
      source.addEventListener('clicks', (event) => {
        const e = event as MessageEvent<string>;
        if (e.lastEventId) lastEventId = e.lastEventId;
        try {
          add((JSON.parse(e.data) as ClicksEvent).data.clicks, true);
        } catch {
          // Not the documented shape: nothing to show.
        }
      });
      // Other events move the resume point too, so a reconnection does not replay them.
      for (const type of ['link.created', 'link.updated', 'link.deleted'])
        source.addEventListener(type, (event) => {
          const id = (event as MessageEvent<string>).lastEventId;
          if (id) lastEventId = id;
        });
    };
    connect();
    return () => {
      ended = true;
      stream?.close();
      if (pollTimer !== null) clearInterval(pollTimer);
      if (retryTimer !== null) clearTimeout(retryTimer);
    };
  }, [linkId]);

  return { status, received, mark };
}

/**
 * Of the received clicks, those the stream brought after numbers were loaded at `mark` (the
 * statistics, which say nothing of when they were read): a click arrives a moment after the
 * flush that counted it, so this errs only for one recorded in the instant before the numbers
 * were read and brought after they arrived.
 */
export const arrivedAfter = (received: ReceivedClick[], mark: number) =>
  received.filter((r) => r.streamed && r.arrival > mark);

/**
 * Of the received clicks, those newer than a link's `lastClickedAt`: its counters, read with
 * it, do not include them yet (a flush updates both at once).
 */
export const newerThan = (received: ReceivedClick[], lastClickedAt: number | null) =>
  received.filter((r) => lastClickedAt === null || r.click.timestamp > lastClickedAt);
