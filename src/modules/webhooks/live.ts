/**
 * The live stream, `GET /api/v1/events` (docs/behaviour.md, "Live events"): Server-Sent Events
 * read from the outbox, so a stream on any node sees every node's events in their commit order.
 * Each event's `id:` is its number: a client that reconnects with Last-Event-ID gets everything
 * after it that is still kept (7 days; older than that, a `gap` event says so first). A comment
 * every 15 s keeps proxies from closing an idle stream. Streams are bounded per key. While one
 * is open the process says so in the outbox (event_listeners), so click batches record their
 * `clicks` events even when no webhook takes them; for a minute after the last one closes too,
 * so a stream that reconnects misses none.
 */
import type { Deps } from '../../deps';
import { invalid, notFound, RateLimitedError } from '../../lib/errors';
import { clicksFor } from './outbox/click-events';
import { eventData } from './outbox/data';
import type { StoredEvent } from './outbox/store';

/** Streams one key (or one signed-in account) may hold open on one process. */
export const STREAMS_PER_KEY = 5;
const POLL_MS = 500;
const HEARTBEAT_MS = 15_000;
const PAGE = 100;
/** How long a process's word that it listens holds, and how often it is renewed while it does. */
const LISTEN_MS = 60_000;
const LISTEN_RENEW_MS = 15_000;

type LiveDeps = Pick<Deps, 'stores' | 'config' | 'clock' | 'linkIndex' | 'log'>;

const open = new Map<string, number>();

/** The open streams of one app (by its stores), and the timer renewing its word that it listens. */
const listening = new WeakMap<object, { streams: number; timer: ReturnType<typeof setInterval> }>();

async function sayListening(deps: LiveDeps): Promise<void> {
  try {
    await deps.stores.outbox.listening(deps.config.nodeId, deps.clock.now() + LISTEN_MS);
  } catch (err) {
    deps.log.error('live events: could not record that this process listens', err);
  }
}

async function startListening(deps: LiveDeps): Promise<() => void> {
  const held = listening.get(deps.stores);
  if (held !== undefined) held.streams++;
  else listening.set(deps.stores, { streams: 1, timer: setInterval(() => void sayListening(deps), LISTEN_RENEW_MS) });
  // Before the first read: the next click batch records its events for this stream.
  await sayListening(deps);
  return () => {
    const state = listening.get(deps.stores);
    if (state === undefined) return;
    state.streams--;
    if (state.streams > 0) return;
    clearInterval(state.timer);
    listening.delete(deps.stores);
  };
}

/** The event number a Last-Event-ID header (or `lastEventId` query) names; null for none. */
export function resumeFrom(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw))
    throw invalid('Last-Event-ID', 'Last-Event-ID must be the id of an event this stream sent');
  return Number(raw);
}

/** What one stream sends: one link's events or all, bot hits or not. */
interface Reader {
  linkId: string | null;
  bots: boolean;
}

/**
 * One event as a Server-Sent Event: its number, its type, and the same JSON body a webhook gets
 * (a `clicks` event's clicks those the reader takes); null when it takes none of them.
 */
async function frame(deps: LiveDeps, event: StoredEvent, reader: Reader): Promise<string | null> {
  const stored = await eventData(deps, event);
  const data = event.type === 'clicks' ? clicksFor({ data: stored, botData: event.botData }, reader) : stored;
  if (data === null) return null;
  const body = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(new Date(event.at).toISOString())},"data":${data}}`;
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${body}\n\n`;
}

export async function openLiveStream(
  deps: LiveDeps,
  input: { holder: string; linkId: string | null; bots: boolean; after: number | null },
): Promise<Response> {
  if (input.linkId !== null && (await deps.stores.links.find(input.linkId)) === null) throw notFound('link');
  const held = open.get(input.holder) ?? 0;
  if (held >= STREAMS_PER_KEY)
    throw new RateLimitedError(`At most ${STREAMS_PER_KEY} live streams per key at once: close one first`, 5);
  open.set(input.holder, held + 1);
  const stopListening = await startListening(deps);
  const { newest, oldest } = await deps.stores.outbox.bounds();
  let after = input.after ?? newest;
  const gap = input.after !== null && oldest !== null && input.after + 1 < oldest;
  const encoder = new TextEncoder();
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastWrite = Date.now();
  const release = () => {
    if (closed) return;
    closed = true;
    if (timer !== null) clearTimeout(timer);
    stopListening();
    const left = (open.get(input.holder) ?? 1) - 1;
    if (left > 0) open.set(input.holder, left);
    else open.delete(input.holder);
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        controller.enqueue(encoder.encode(text));
        lastWrite = Date.now();
      };
      // How long a browser waits before reconnecting, then what was missed, if anything.
      send('retry: 2000\n\n');
      if (gap) send(`event: gap\ndata: {"after":${after},"oldestKept":${oldest}}\n\n`);
      const tick = async () => {
        if (closed) return;
        try {
          for (;;) {
            const events = await deps.stores.outbox.since(after, PAGE, input.linkId);
            for (const event of events) {
              if (closed) return;
              const text = await frame(deps, event, input);
              if (text !== null) send(text);
              after = event.seq;
            }
            if (events.length < PAGE) break;
          }
          if (Date.now() - lastWrite >= HEARTBEAT_MS) send(': keep-alive\n\n');
        } catch (err) {
          // The database is away for a moment: the stream stays open and reads again.
          deps.log.error('live events: the outbox could not be read', err);
        }
        if (!closed) timer = setTimeout(tick, POLL_MS);
      };
      void tick();
    },
    cancel() {
      release();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // nginx buffers responses unless told not to; an event stream must not wait.
      'x-accel-buffering': 'no',
    },
  });
}
