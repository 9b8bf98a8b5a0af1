/**
 * The live stream, `GET /api/v1/events` (docs/behaviour.md, "Live events"): Server-Sent Events
 * read from the outbox, so a stream on any node sees every node's events in their commit order.
 * Each event's `id:` is its number: a client that reconnects with Last-Event-ID gets everything
 * after it that is still kept (7 days; older than that, a `gap` event says so first).
 *
 * A stream first sends what it missed by itself, a page at a time and only while its reader
 * keeps up (it waits for room, it is never dropped for it); once it has caught up it follows the
 * app's one reader of the outbox (live-hub.ts). A follower that holds STREAM_BUFFER_BYTES unread
 * is dropped with a `gap` naming the event to resume after: a stalled reader costs a bounded
 * amount of memory, never the whole feed. Streams are bounded per key, per account and per app.
 */

import { invalid, notFound, RateLimitedError } from '../../lib/errors';
import { nextTurn } from '../../lib/event-loop';
import { type Access, linkFilter, sees } from '../access/public';
import type { WebhooksDeps } from './deps';
import { encode, FramedEvent, type Reader, type ReaderLimits } from './live-frames';
import { type HubDeps, LiveHub, type Member, NO_LONGER_HOLDS, sayListening } from './live-hub';

/** Streams one key (or one signed-in session) may hold open on one process. */
export const STREAMS_PER_KEY = 5;
/** Streams the keys and sessions of one account may hold open on one process, together. */
export const STREAMS_PER_ACCOUNT = 10;
/** Bytes a stream may hold unread before it is dropped (a `clicks` event is ~450 KB at most). */
export const STREAM_BUFFER_BYTES = 1 << 20;
/** Events read at a time while a stream catches up by itself. */
const REPLAY_PAGE = 10;
const RETRY_AFTER_S = 5;

type LiveDeps = WebhooksDeps;

/** What opening a stream reads besides: the hosts of the domains a key is limited to. */
export interface OpenDeps extends LiveDeps {
  domains: { byId(id: number): { host: string } | undefined };
}

/** The hub of each app (by its stores), made with its first stream and gone with its last. */
const hubs = new WeakMap<object, Promise<LiveHub>>();

async function hubOf(deps: HubDeps): Promise<LiveHub> {
  for (;;) {
    let made = hubs.get(deps.stores);
    if (made === undefined) {
      const creating = (async () => {
        // Before the first read: the next click batch records its events for this stream.
        await sayListening(deps);
        const { newest } = await deps.stores.outbox.bounds();
        return new LiveHub(deps, newest, () => {
          if (hubs.get(deps.stores) === creating) hubs.delete(deps.stores);
        });
      })();
      made = creating;
      hubs.set(deps.stores, creating);
      creating.catch(() => {
        if (hubs.get(deps.stores) === creating) hubs.delete(deps.stores);
      });
    }
    const hub = await made;
    // Its last stream may have closed while this one waited for it.
    if (!hub.stopped) return hub;
  }
}

/** The event number a Last-Event-ID header (or `lastEventId` query) names; null for none. */
export function resumeFrom(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw))
    throw invalid('Last-Event-ID', 'Last-Event-ID must be the id of an event this stream sent');
  return Number(raw);
}

export interface LiveStreamInput extends Omit<Reader, 'limits'> {
  /** Who is asking: a caller limited to projects or domains follows the links it sees only. */
  access: Access;
  /** The key (or session) opening it, and its account. */
  holder: string;
  account: string;
  /** Last-Event-ID: the stream sends what came after it; null: from now on. */
  after: number | null;
  /** Whether the credential the stream was opened with still holds. */
  stillAllowed(): Promise<boolean>;
}

class LiveStream implements Member {
  after = 0;
  lastWrite = Date.now();
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly deps: LiveDeps,
    private readonly hub: LiveHub,
    readonly reader: Reader,
    readonly holder: string,
    readonly account: string,
    readonly openedAt: number,
    readonly stillAllowed: () => Promise<boolean>,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.woken(),
        cancel: () => this.release(),
      },
      // The queue counts bytes: desiredSize goes below zero once more than the buffer is unread.
      { highWaterMark: STREAM_BUFFER_BYTES, size: (chunk) => chunk?.byteLength ?? 0 },
    );
  }

  private woken(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private enqueue(bytes: Uint8Array): void {
    this.controller.enqueue(bytes);
    this.lastWrite = Date.now();
  }

  send(text: string): void {
    this.enqueue(encode(text));
  }

  give(bytes: Uint8Array): void {
    if (this.closed) return;
    if ((this.controller.desiredSize ?? 0) >= 0) {
      this.enqueue(bytes);
      return;
    }
    // Its reader fell behind by more than the buffer: it resumes after what it was given.
    this.send(`id: ${this.after}\nevent: gap\ndata: {"after":${this.after},"reason":"slow_reader"}\n\n`);
    this.finish();
  }

  end(why: string): void {
    if (this.closed) return;
    this.send(`: ${why}\n\n`);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    try {
      this.controller.close();
    } catch {
      // Cancelled by its reader meanwhile: nothing to close.
    }
    this.release();
  }

  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.woken();
    this.hub.leave(this);
  }

  /** Resolves once the reader has room for more (or the stream closed). */
  private room(): Promise<void> {
    if (this.closed || (this.controller.desiredSize ?? 0) > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** Sends what it missed, a page at a time while its reader keeps up, then follows the hub. */
  async catchUp(): Promise<void> {
    for (;;) {
      if (this.closed || this.hub.follow(this)) return;
      await this.room();
      if (this.closed) return;
      // Read before the page: everything up to it that this stream takes is in the page.
      const cursor = this.hub.cursor;
      const events = await this.deps.stores.outbox.since(this.after, REPLAY_PAGE, this.reader.linkId);
      if (events.length === 0) {
        if (this.after < cursor) this.after = cursor;
        await this.hub.idle();
        continue;
      }
      if (!(await this.stillAllowed())) return this.end(NO_LONGER_HOLDS);
      for (const event of events) {
        const bytes = await new FramedEvent(this.deps, event).bytesFor(this.reader);
        if (bytes !== null) {
          await this.room();
          if (this.closed) return;
          this.enqueue(bytes);
        }
        this.after = event.seq;
      }
      await nextTurn();
    }
  }
}

/** A limited caller's limits as a stream reads them; null for one who sees every link. */
function limitsOf(deps: OpenDeps, access: Access): ReaderLimits | null {
  const visible = linkFilter(access);
  if (visible === null) return null;
  const hosts =
    visible.domains === null ? null : new Set(visible.domains.flatMap((id) => deps.domains.byId(id)?.host ?? []));
  const projects = visible.projects === null ? null : new Set(visible.projects);
  const key = JSON.stringify([
    visible.projects ? [...visible.projects].sort() : null,
    hosts ? [...hosts].sort() : null,
  ]);
  return { projects, hosts, key };
}

export async function openLiveStream(deps: OpenDeps, input: LiveStreamInput): Promise<Response> {
  if (input.linkId !== null) {
    // A link outside the caller's limits is not found, as one that does not exist.
    const link = await deps.stores.links.find(input.linkId);
    if (link === null || !sees(input.access, link)) throw notFound('link');
  }
  const hub = await hubOf(deps);
  const most = deps.config.liveStreams;
  if (hub.members.size >= most)
    throw new RateLimitedError(`This server holds ${most} live streams, its most: try again later`, RETRY_AFTER_S);
  if (hub.count((m) => m.account === input.account) >= STREAMS_PER_ACCOUNT)
    throw new RateLimitedError(
      `At most ${STREAMS_PER_ACCOUNT} live streams per account at once: close one first`,
      RETRY_AFTER_S,
    );
  if (hub.count((m) => m.holder === input.holder) >= STREAMS_PER_KEY)
    throw new RateLimitedError(
      `At most ${STREAMS_PER_KEY} live streams per key at once: close one first`,
      RETRY_AFTER_S,
    );
  const reader = { linkId: input.linkId, bots: input.bots, limits: limitsOf(deps, input.access) };
  const stream = new LiveStream(deps, hub, reader, input.holder, input.account, deps.clock.now(), input.stillAllowed);
  // Counted from now on, before anything else is awaited.
  hub.members.add(stream);
  try {
    const { newest, oldest } = await deps.stores.outbox.bounds();
    // How long a browser waits before reconnecting, then what was missed, if anything.
    stream.send('retry: 2000\n\n');
    if (input.after === null) stream.after = newest;
    else if (input.after > newest) {
      // An id this database never gave (restored from a backup, another installation's): the
      // client resumes from the newest event, and its EventSource keeps that id from here on.
      stream.after = newest;
      stream.send(
        `id: ${newest}\nevent: gap\ndata: {"after":${input.after},"newest":${newest},"reason":"unknown_id"}\n\n`,
      );
    } else {
      stream.after = input.after;
      if (oldest !== null && input.after + 1 < oldest)
        stream.send(`event: gap\ndata: {"after":${input.after},"oldestKept":${oldest}}\n\n`);
    }
  } catch (err) {
    hub.leave(stream);
    throw err;
  }
  void stream.catchUp().catch((err) => {
    deps.log.error('live events: the outbox could not be read', err);
    stream.end('the outbox could not be read: reconnect with Last-Event-ID');
  });
  return new Response(stream.body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // nginx buffers responses unless told not to; an event stream must not wait.
      'x-accel-buffering': 'no',
    },
  });
}
