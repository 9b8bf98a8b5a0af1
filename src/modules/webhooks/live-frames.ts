/**
 * Events as the live stream sends them (live.ts): each framed once per kind of reader (all
 * events or one link's, bot hits or not, within which limits), the bytes shared by every stream
 * that takes them. A `clicks` batch of several links is parsed once and split by link once,
 * whatever the number of streams of one link.
 *
 * A reader limited to projects or domains takes the events of the links it sees: a link event
 * when the link, as the event tells it (after the change; a deletion tells where it was), is
 * within its limits; of a `clicks` batch, the clicks of the links within them now.
 */

import type { Click } from './click-record';
import type { WebhooksDeps } from './deps';
import { clicksFor } from './outbox/click-events';
import { eventData } from './outbox/data';
import { eventBody } from './outbox/events';
import type { StoredEvent } from './outbox/store';

type FrameDeps = WebhooksDeps;

/** A stream's limits (its caller's projects, and its domains by host); `key` names them for the frame cache. */
export interface ReaderLimits {
  projects: ReadonlySet<string> | null;
  hosts: ReadonlySet<string> | null;
  key: string;
}

/** What one stream sends: one link's events or all, bot hits or not, of the links within its limits (null: all). */
export interface Reader {
  linkId: string | null;
  bots: boolean;
  limits: ReaderLimits | null;
}

/** Where a link event says its link is: a Link's (or a deleted link's) domain host and project. */
interface Placement {
  domain?: string;
  projectId?: string | null;
}

function within(limits: ReaderLimits, host: string | undefined, projectId: string | null | undefined): boolean {
  if (limits.hosts !== null && (host === undefined || !limits.hosts.has(host))) return false;
  return limits.projects === null || (projectId != null && limits.projects.has(projectId));
}

const encoder = new TextEncoder();

export function encode(text: string): Uint8Array {
  return encoder.encode(text);
}

function sse(event: StoredEvent, data: string): Uint8Array {
  return encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${eventBody(event, data)}\n\n`);
}

/** Whether a reader may take anything of this event (a several-links batch: maybe some clicks). */
export function concerns(event: StoredEvent, linkId: string | null): boolean {
  return linkId === null || event.linkId === linkId || (event.type === 'clicks' && event.linkId === null);
}

interface LinkClicks {
  humans: Click[];
  bots: Click[];
}

export class FramedEvent {
  private data: Promise<string> | null = null;
  private byLink: Map<string, LinkClicks> | null = null;
  private placement: Placement | null = null;
  /** The project of each link of a `clicks` batch now, read once for every limited reader. */
  private projects: Promise<Map<string, string | null>> | null = null;
  private readonly frames = new Map<string, Promise<Uint8Array | null>>();

  constructor(
    private readonly deps: FrameDeps,
    readonly event: StoredEvent,
  ) {}

  /** The event as this reader gets it; null when it takes nothing of it. */
  bytesFor(reader: Reader): Promise<Uint8Array | null> {
    const key = `${reader.bots ? 'b' : 'h'}:${reader.linkId ?? ''}:${reader.limits?.key ?? ''}`;
    let framed = this.frames.get(key);
    if (framed === undefined) {
      framed = this.frame(reader);
      this.frames.set(key, framed);
    }
    return framed;
  }

  private async frame(reader: Reader): Promise<Uint8Array | null> {
    this.data ??= eventData(this.deps, this.event);
    const stored = await this.data;
    if (this.event.type !== 'clicks') {
      if (reader.limits !== null) {
        this.placement ??= JSON.parse(stored) as Placement;
        if (!within(reader.limits, this.placement.domain, this.placement.projectId)) return null;
      }
      return sse(this.event, stored);
    }
    if (reader.limits !== null) return this.limitedClicks(reader, reader.limits, stored);
    // The whole batch, or a batch of this reader's link only: as stored, bot hits spliced in as text.
    if (reader.linkId === null || this.event.linkId !== null) {
      const data = clicksFor({ data: stored, botData: this.event.botData }, { bots: reader.bots, linkId: null });
      return data === null ? null : sse(this.event, data);
    }
    const mine = this.split(stored).get(reader.linkId);
    const clicks = mine === undefined ? [] : reader.bots ? [...mine.humans, ...mine.bots] : mine.humans;
    return clicks.length === 0 ? null : sse(this.event, JSON.stringify({ clicks }));
  }

  /** The clicks of the batch (of the reader's link, when it follows one) whose links are within its limits now. */
  private async limitedClicks(reader: Reader, limits: ReaderLimits, stored: string): Promise<Uint8Array | null> {
    const byLink = this.split(stored);
    this.projects ??= this.deps.stores.links
      .findMany([...byLink.keys()])
      .then((rows) => new Map(rows.map((r) => [r.id, r.projectId])));
    const projects = await this.projects;
    const clicks: Click[] = [];
    for (const [linkId, mine] of byLink) {
      if (reader.linkId !== null && linkId !== reader.linkId) continue;
      // A link deleted since (not found now) is nobody's to see.
      if (!projects.has(linkId)) continue;
      const taken = reader.bots ? [...mine.humans, ...mine.bots] : mine.humans;
      clicks.push(...taken.filter((click) => within(limits, click.domain, projects.get(linkId))));
    }
    return clicks.length === 0 ? null : sse(this.event, JSON.stringify({ clicks }));
  }

  /** The batch's clicks by link: parsed once for all the streams of one link. */
  private split(stored: string): Map<string, LinkClicks> {
    if (this.byLink !== null) return this.byLink;
    const byLink = new Map<string, LinkClicks>();
    const add = (clicks: Click[], side: keyof LinkClicks) => {
      for (const click of clicks) {
        let entry = byLink.get(click.linkId);
        if (entry === undefined) {
          entry = { humans: [], bots: [] };
          byLink.set(click.linkId, entry);
        }
        entry[side].push(click);
      }
    };
    add((JSON.parse(stored) as { clicks: Click[] }).clicks, 'humans');
    if (this.event.botData !== null) add(JSON.parse(this.event.botData) as Click[], 'bots');
    this.byLink = byLink;
    return byLink;
  }
}
