/**
 * One reader of the outbox per app for every live stream it holds (live.ts): every POLL_MS it
 * reads the events recorded since the last read, frames each once per kind of reader
 * (live-frames.ts) and hands the same bytes to every stream that takes them, so a hundred streams
 * cost one read and one framing, not a hundred. Before it hands out each page of events it has
 * read (and every CHECK_MS while there are none) it asks each holder of streams, once, whether
 * its key or session still holds, and
 * ends the streams of those that do not; it ends streams that reached their lifetime, and says
 * every 15 s on the idle ones that they are alive.
 * While it runs, the app says so in the outbox (event_listeners), so click batches record their
 * `clicks` events even when no webhook takes them; for a minute after the last stream closes
 * too, so a stream that reconnects misses none.
 */

import { nextTurn } from '../../lib/event-loop';
import type { WebhooksDeps } from './deps';
import { concerns, FramedEvent, type Reader } from './live-frames';

export type HubDeps = WebhooksDeps;

const POLL_MS = 500;
const PAGE = 50;
export const NO_LONGER_HOLDS = 'the key or session of this stream no longer holds';
/** How often a holder's credential is read again while no event goes out. */
const CHECK_MS = 1000;
const HEARTBEAT_MS = 15_000;
/** A stream ends after this long, whatever its traffic; its client reconnects with Last-Event-ID. */
export const STREAM_LIFETIME_MS = 3_600_000;
/** How long a process's word that it listens holds, and how often it is renewed while it does. */
const LISTEN_MS = 60_000;
const LISTEN_RENEW_MS = 15_000;

/** A stream as the hub sees it. */
export interface Member {
  readonly reader: Reader;
  /** The key (or session) holding it, and its account. */
  readonly holder: string;
  readonly account: string;
  /** When it opened, on the app's clock. */
  readonly openedAt: number;
  /** The newest event it was handed or passed over. */
  after: number;
  /** Real time of its last write, for the keep-alive comments. */
  lastWrite: number;
  /** Whether its key or session still holds. */
  stillAllowed(): Promise<boolean>;
  /** Queues bytes on it, or drops it (with a `gap`) when it holds too much unread already. */
  give(bytes: Uint8Array): void;
  /** Ends it, saying why in a comment. */
  end(why: string): void;
}

export async function sayListening(deps: HubDeps): Promise<void> {
  try {
    await deps.stores.outbox.listening(deps.config.nodeId, deps.clock.now() + LISTEN_MS);
  } catch (err) {
    deps.log.error('live events: could not record that this process listens', err);
  }
}

const KEEP_ALIVE = new TextEncoder().encode(': keep-alive\n\n');

export class LiveHub {
  /** The newest event handed out (or passed over) to the streams that follow it. */
  cursor: number;
  /** Every stream open on this app: replaying its past events, or following. */
  readonly members = new Set<Member>();
  /** The streams the hub hands events to. */
  private readonly following = new Set<Member>();
  private busy: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly listenTimer: ReturnType<typeof setInterval>;
  private lastCheck = 0;
  private ended = false;

  constructor(
    private readonly deps: HubDeps,
    newest: number,
    private readonly onStop: () => void,
  ) {
    this.cursor = newest;
    this.listenTimer = setInterval(() => void this.sayListening(), LISTEN_RENEW_MS);
    this.timer = setTimeout(() => void this.tick(), POLL_MS);
  }

  private sayListening(): Promise<void> {
    return sayListening(this.deps);
  }

  get stopped(): boolean {
    return this.ended;
  }

  count(pick: (m: Member) => boolean): number {
    let n = 0;
    for (const m of this.members) if (pick(m)) n++;
    return n;
  }

  /**
   * Makes a stream that has sent everything up to the hub's cursor follow the hub; false while it
   * is behind (it reads on by itself) or while a batch is being handed out (wait for `idle()`).
   */
  follow(member: Member): boolean {
    if (this.busy !== null || member.after < this.cursor) return false;
    this.following.add(member);
    return true;
  }

  /** Resolves once the batch being handed out (if any) has been. */
  idle(): Promise<void> {
    return this.busy ?? Promise.resolve();
  }

  leave(member: Member): void {
    this.members.delete(member);
    this.following.delete(member);
    if (this.members.size > 0 || this.ended) return;
    this.ended = true;
    if (this.timer !== null) clearTimeout(this.timer);
    clearInterval(this.listenTimer);
    this.onStop();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    let done!: () => void;
    this.busy = new Promise((resolve) => {
      done = resolve;
    });
    try {
      await this.round();
    } catch (err) {
      // The database is away for a moment: the streams stay open and the next round reads again.
      this.deps.log.error('live events: the outbox could not be read', err);
    } finally {
      this.busy = null;
      done();
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), POLL_MS);
  }

  private async round(): Promise<void> {
    const now = this.deps.clock.now();
    for (const member of this.members)
      if (now - member.openedAt >= STREAM_LIFETIME_MS)
        member.end('this stream reached its lifetime: reconnect with Last-Event-ID');
    let checked = false;
    for (;;) {
      const events = await this.deps.stores.outbox.since(this.cursor, PAGE, null);
      if (events.length === 0) break;
      // Read after the page: nothing recorded after a key was revoked (or a session ended) goes
      // out to its holder.
      await this.check();
      checked = true;
      // A turn of the event loop after each event: its bytes (up to ~450 KB times the streams)
      // go out to the sockets while redirects are answered in between, not all in one burst.
      for (const event of events) {
        await this.handOut(new FramedEvent(this.deps, event));
        await nextTurn();
      }
      if (events.length < PAGE) break;
    }
    if (!checked && Date.now() - this.lastCheck >= CHECK_MS) await this.check();
    const quiet = Date.now() - HEARTBEAT_MS;
    for (const member of this.following) if (member.lastWrite <= quiet) member.give(KEEP_ALIVE);
  }

  /** Frames the event once per kind of reader that takes it, then gives every follower its bytes. */
  private async handOut(framed: FramedEvent): Promise<void> {
    const { event } = framed;
    const takers = [...this.following].filter((m) => m.after < event.seq && concerns(event, m.reader.linkId));
    const bytes = await Promise.all(takers.map((m) => framed.bytesFor(m.reader)));
    takers.forEach((member, i) => {
      const frame = bytes[i];
      if (frame !== null && frame !== undefined) member.give(frame);
    });
    for (const member of this.following) if (member.after < event.seq) member.after = event.seq;
    this.cursor = event.seq;
  }

  /** Asks each holder once whether its credential still holds; ends the streams of those that do not. */
  private async check(): Promise<void> {
    const byHolder = new Map<string, Member[]>();
    for (const member of this.members) {
      const list = byHolder.get(member.holder);
      if (list === undefined) byHolder.set(member.holder, [member]);
      else list.push(member);
    }
    await Promise.all(
      [...byHolder.values()].map(async (members) => {
        if (await members[0]!.stillAllowed()) return;
        for (const member of members) member.end(NO_LONGER_HOLDS);
      }),
    );
    this.lastCheck = Date.now();
  }
}
