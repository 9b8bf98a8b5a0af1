/**
 * The slug index's storage (link-index.ts): every link's redirect facts in typed arrays by slot
 * and one arena of blocks (clicks/target-block.ts: the link's, then one per variant), instead
 * of objects, strings and map entries per link (docs/performance.md, "Where the idle RSS is").
 * A lookup hashes the slug with its domain's id, probes an open-addressing table and compares
 * the domain id and the slug's bytes in place; the `Location` is decoded per redirect (~50 ns).
 * Slugs are unique per domain: the same slug on two domains is two entries.
 *
 * An entry is written once and never rewritten: a changed link gets a new one, and a full arena
 * is replaced by a new one holding only the live entries. A buffered click keeps the arena and
 * its offsets (ClickRecord), so it records the link as it was when clicked, whatever happens
 * to it later.
 */
import { grown } from '../../lib/typed-arrays';
import {
  type BlockFields,
  blockId,
  blockIdIs,
  blockKey,
  blockKeyIs,
  blockLength,
  blockLocation,
  blockSize,
  type ClickLinks,
  raiseHumanClicks,
  startCounts,
  targetSerial,
  writeBlock,
} from '../clicks/public';
import type { Preview, RedirectRow, Rule } from '../links/public';
import { type CompiledRules, compileRules } from './rules/compile';

type LinkStatus = RedirectRow['status'];
/** A slot's status code: FREE (no link), then the link's status. */
export const FREE = 0;
export const PAUSED = 2;
export const STATUS_NAMES: readonly (LinkStatus | null)[] = [null, 'active', 'paused', 'archived'];

/** A variant of a link, as its click target: its code, its id, and the link's destination with its params. */
export interface VariantFacts {
  code: string;
  variantId: string;
  location: string;
  paramsJson: string;
}

export interface LinkFacts {
  id: string;
  slug: string;
  /** The link's domain (domains/table.ts): its slug answers on that domain only. */
  domainId: number;
  status: LinkStatus;
  expiresAt: number | null;
  clickLimit: number | null;
  /** The Location header value: destination with the effective params applied. */
  location: string;
  /** Effective params as JSON, `{}` when none. */
  paramsJson: string;
  /** Where an expired link or one past its click limit sends visitors, or null: the 410 page. */
  fallbackUrl: string | null;
  redirectStatus: number;
  forwardQuery: boolean;
  /** argon2id of the link's password, or null: none asked. */
  passwordHash: string | null;
  /** The link's rules in order; empty: none. */
  rules: readonly Rule[];
  /** What social-preview crawlers are shown, or null. */
  preview: Preview | null;
  /** The ids its clicks are named with on PostgreSQL (target-block.ts); absent or 0: not known. */
  valueId?: number;
  targetId?: number;
}

/** Bits of LinkTable.extras: which of the rarely set facts a link has. */
export const HAS_PASSWORD = 1;
export const HAS_PREVIEW = 2;
export const HAS_RULES = 4;

const EMPTY = -1;
const GONE = -2;
const MIN_ARENA = 64 * 1024;

/** FNV-1a over UTF-16 code units (slugs and ids are ASCII). */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A slug's hash on a domain: FNV-1a over the slug, then over the domain id's bytes. */
function slugHashOf(domainId: number, slug: string): number {
  let h = hashOf(slug);
  h = Math.imul(h ^ (domainId & 0xff), 0x01000193);
  h = Math.imul(h ^ ((domainId >>> 8) & 0xff), 0x01000193);
  h = Math.imul(h ^ (domainId >>> 16), 0x01000193);
  return h >>> 0;
}

/**
 * An open-addressing table of slots by a key's hash (linear probing, tombstones on delete). A
 * key is a string and a number (the slug and its domain id; the id table gives 0).
 */
class SlotHash {
  private slots = new Int32Array(16).fill(EMPTY);
  /** Cells not EMPTY (live and GONE): what decides a rebuild. */
  private filled = 0;

  constructor(
    /** The stored hash of a slot's key. */
    private readonly hashAt: () => Uint32Array,
    /** Whether a slot's key equals (`tag`, `key`). */
    private readonly keyIs: (slot: number, key: string, tag: number) => boolean,
  ) {}

  /** The slot `key` points at, or -1. */
  find(key: string, tag: number, hash: number): number {
    const cell = this.cell(key, tag, hash);
    return cell < 0 ? -1 : this.slots[cell]!;
  }

  /** Points `key` at `slot`, replacing what it pointed at (the hash is already stored for `slot`). */
  set(key: string, tag: number, hash: number, slot: number, live: number): void {
    const existing = this.cell(key, tag, hash);
    if (existing >= 0) {
      this.slots[existing] = slot;
      return;
    }
    // Rebuilt at three quarters full (tombstones count): a hit then probes ~2.5 cells on average.
    if ((this.filled + 1) * 4 > this.slots.length * 3) this.rebuild(live + 1);
    const slots = this.slots;
    const mask = slots.length - 1;
    let p = hash & mask;
    while (slots[p]! >= 0) p = (p + 1) & mask;
    if (slots[p] === EMPTY) this.filled++;
    slots[p] = slot;
  }

  /** Forgets `key` if it points at `slot`. */
  delete(key: string, tag: number, hash: number, slot: number): void {
    const cell = this.cell(key, tag, hash);
    if (cell >= 0 && this.slots[cell] === slot) this.slots[cell] = GONE;
  }

  /** Where `key` is in the table, or -1. */
  private cell(key: string, tag: number, hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    const hashes = this.hashAt();
    for (let p = hash & mask; ; p = (p + 1) & mask) {
      const slot = slots[p]!;
      if (slot === EMPTY) return -1;
      if (slot >= 0 && hashes[slot] === hash && this.keyIs(slot, key, tag)) return p;
    }
  }

  /** A table at most half full for `live` keys, without tombstones. */
  private rebuild(live: number): void {
    const old = this.slots;
    let size = 16;
    while (size < live * 2) size *= 2;
    const slots = new Int32Array(size).fill(EMPTY);
    const hashes = this.hashAt();
    const mask = size - 1;
    let filled = 0;
    for (const slot of old) {
      if (slot < 0) continue;
      let p = hashes[slot]! & mask;
      while (slots[p] !== EMPTY) p = (p + 1) & mask;
      slots[p] = slot;
      filled++;
    }
    this.slots = slots;
    this.filled = filled;
  }

  get bytes(): number {
    return this.slots.byteLength;
  }
}

export class LinkTable implements ClickLinks {
  /** The index of the link's status in STATUS_NAMES (FREE: no link), by slot. */
  status = new Uint8Array(0);
  /** Epoch ms, NaN for none. */
  expiresAt = new Float64Array(0);
  /** NaN for none. */
  clickLimit = new Float64Array(0);
  /**
   * The link's stored human clicks plus its buffered clicks known to be human (record.ts), or
   * more when it learns of clicks stored or let through elsewhere (a refresh, the shared click
   * limit count of several nodes: click-limit-gate.ts); never more than happened.
   */
  humanClicks = new Float64Array(0);
  /** Buffered clicks not yet classified as human or bot. */
  unsorted = new Int32Array(0);
  /**
   * The stored human clicks a link with a click limit was last read with, by slot: imported
   * history counted after that read is added to humanClicks, before it is in it already
   * (LinkIndex.countImported). Only limited links (the count matters to nothing else; a limit
   * set later reads the link again): no bytes for the others.
   */
  readonly storedRead = new Map<number, number>();
  /** The status of the link's redirects (301, 302, 307, 308). */
  redirectStatus = new Uint16Array(0);
  /** 1: the visitor's query is added to the Location (location.ts, withVisitorQuery). */
  forwardQuery = new Uint8Array(0);
  /**
   * Fallback URLs by slot, only for the links that have one: few do, and the others pay
   * nothing; read only when a link is expired or past its limit.
   */
  readonly fallbackUrl = new Map<number, string>();
  /**
   * Which of a password, a preview and rules the link has (HAS_* bits): the redirect reads this
   * byte and looks in the maps below only for the few links that have one.
   */
  extras = new Uint8Array(0);
  readonly passwordHash = new Map<number, string>();
  /** The link's rules compiled when it is put (rules/compile.ts): matched per request with no parsing. */
  readonly rules = new Map<number, CompiledRules>();
  readonly preview = new Map<number, Preview>();
  /** Where the slot's entry (its link's block, then its variants') starts in `arena`. */
  blockAt = new Uint32Array(0);
  /** How many variant blocks follow the link's block. */
  private variantCount = new Uint16Array(0);
  /** The link's domain id, by slot: part of its slug's key. */
  domainId = new Uint32Array(0);
  private slugHash = new Uint32Array(0);
  private idHash = new Uint32Array(0);
  /** The current arena; buffered clicks may keep older ones alive until they are written. */
  arena: Buffer = arenaFor(0);
  private used = 0;
  /** Bytes of the live entries (the rest of `used` is entries replaced or removed). */
  private liveBytes = 0;
  private highWater = 0;
  private readonly freeSlots: number[] = [];
  private count = 0;
  private readonly bySlug = new SlotHash(
    () => this.slugHash,
    (slot, slug, domainId) => this.domainId[slot] === domainId && blockKeyIs(this.arena, this.blockAt[slot]!, slug),
  );
  private readonly byId = new SlotHash(
    () => this.idHash,
    (slot, id) => blockIdIs(this.arena, this.blockAt[slot]!, id),
  );

  get size(): number {
    return this.count;
  }

  /** The slot of a slug (case-sensitive) on a domain, or -1. */
  find(domainId: number, slug: string): number {
    return this.bySlug.find(slug, domainId, slugHashOf(domainId, slug));
  }

  findId(id: string): number {
    return this.byId.find(id, 0, hashOf(id));
  }

  /** Where the block of the link's variant of this code is in `arena`, or -1 (the click goes to the link itself). */
  variantAt(slot: number, code: string): number {
    const arena = this.arena;
    let at = this.blockAt[slot]!;
    for (let n = this.variantCount[slot]!; n > 0; n--) {
      at += blockLength(arena, at);
      if (blockKeyIs(arena, at, code)) return at;
    }
    return -1;
  }

  /** The blocks of the link's variants, in the order they were given. */
  variantBlocks(slot: number): number[] {
    const blocks: number[] = [];
    let at = this.blockAt[slot]!;
    for (let n = this.variantCount[slot]!; n > 0; n--) {
      at += blockLength(this.arena, at);
      blocks.push(at);
    }
    return blocks;
  }

  location(slot: number): string {
    return blockLocation(this.arena, this.blockAt[slot]!);
  }

  slug(slot: number): string {
    return blockKey(this.arena, this.blockAt[slot]!);
  }

  linkId(slot: number): string {
    return blockId(this.arena, this.blockAt[slot]!);
  }

  /**
   * Stores a link and its variants: the same slot (and counters) when its id is known, else a
   * new slot whose human count starts at `storedHumanClicks`. A known link's count rises to
   * `storedHumanClicks` when that is more (other processes stored clicks of it). Returns the slot.
   */
  put(facts: LinkFacts, variants: readonly VariantFacts[], storedHumanClicks: number): number {
    // Sized (and checked) before anything changes: a refused link leaves the table as it was.
    const blocks: BlockFields[] = [
      {
        serial: targetSerial(),
        key: facts.slug,
        id: facts.id,
        location: facts.location,
        paramsJson: facts.paramsJson,
        valueId: facts.valueId,
        targetId: facts.targetId,
      },
    ];
    // A variant's target is not known here (its clicks' targets are looked up); its link's value is.
    for (const v of variants)
      blocks.push({
        serial: targetSerial(),
        key: v.code,
        id: v.variantId,
        location: v.location,
        paramsJson: v.paramsJson,
        valueId: facts.valueId,
      });
    const length = blocks.reduce((sum, block) => sum + blockSize(block), 0);
    let slot = this.findId(facts.id);
    if (slot >= 0) {
      // Renamed or moved to another domain: its old key answers no more.
      const oldSlug = this.slug(slot);
      const oldDomain = this.domainId[slot]!;
      if (oldSlug !== facts.slug || oldDomain !== facts.domainId)
        this.bySlug.delete(oldSlug, oldDomain, this.slugHash[slot]!, slot);
      this.liveBytes -= this.entryLength(this.arena, slot);
      // One process stores only what it counted (never more); several nodes store each other's.
      raiseHumanClicks(this, slot, storedHumanClicks);
    } else {
      slot = this.newSlot();
      startCounts(this, slot, storedHumanClicks);
      this.idHash[slot] = hashOf(facts.id);
    }
    if (facts.clickLimit === null) this.storedRead.delete(slot);
    else this.storedRead.set(slot, storedHumanClicks);
    this.blockAt[slot] = this.writeEntry(blocks, length, slot);
    this.variantCount[slot] = variants.length;
    this.domainId[slot] = facts.domainId;
    this.slugHash[slot] = slugHashOf(facts.domainId, facts.slug);
    this.status[slot] = STATUS_NAMES.indexOf(facts.status);
    this.expiresAt[slot] = facts.expiresAt ?? Number.NaN;
    this.clickLimit[slot] = facts.clickLimit ?? Number.NaN;
    this.redirectStatus[slot] = facts.redirectStatus;
    this.forwardQuery[slot] = facts.forwardQuery ? 1 : 0;
    if (facts.fallbackUrl === null) this.fallbackUrl.delete(slot);
    else this.fallbackUrl.set(slot, facts.fallbackUrl);
    this.extras[slot] =
      keptIn(this.passwordHash, slot, facts.passwordHash, HAS_PASSWORD) |
      keptIn(
        this.rules,
        slot,
        facts.rules.length === 0 ? null : compileRules(facts.rules, JSON.parse(facts.paramsJson)),
        HAS_RULES,
      ) |
      keptIn(this.preview, slot, facts.preview, HAS_PREVIEW);
    this.byId.set(facts.id, 0, this.idHash[slot]!, slot, this.count);
    this.bySlug.set(facts.slug, facts.domainId, this.slugHash[slot]!, slot, this.count);
    return slot;
  }

  /** The ids of every link in the table. */
  liveIds(): string[] {
    const ids: string[] = [];
    for (let slot = 0; slot < this.highWater; slot++) if (this.status[slot] !== FREE) ids.push(this.linkId(slot));
    return ids;
  }

  /** Forgets a link; its slot may be reused (its buffered clicks must be gone: ClickBuffer.dropLink). */
  remove(slot: number): void {
    const at = this.blockAt[slot]!;
    this.bySlug.delete(blockKey(this.arena, at), this.domainId[slot]!, this.slugHash[slot]!, slot);
    this.byId.delete(blockId(this.arena, at), 0, this.idHash[slot]!, slot);
    this.liveBytes -= this.entryLength(this.arena, slot);
    this.status[slot] = FREE;
    this.fallbackUrl.delete(slot);
    this.extras[slot] = 0;
    this.passwordHash.delete(slot);
    this.rules.delete(slot);
    this.preview.delete(slot);
    this.storedRead.delete(slot);
    this.freeSlots.push(slot);
    this.count--;
  }

  /**
   * Bytes held: the arrays, the hash tables and the arena's written part (its spare room is not
   * resident until written; older arenas buffered clicks keep are not counted).
   */
  get bytes(): number {
    const arrays = [
      this.status,
      this.expiresAt,
      this.clickLimit,
      this.humanClicks,
      this.unsorted,
      this.redirectStatus,
      this.forwardQuery,
      this.extras,
      this.blockAt,
      this.variantCount,
      this.domainId,
      this.slugHash,
      this.idHash,
    ];
    return arrays.reduce((sum, a) => sum + a.byteLength, 0) + this.bySlug.bytes + this.byId.bytes + this.used;
  }

  /** The length of a slot's entry in `arena` (its block and its variants'). */
  private entryLength(arena: Buffer, slot: number): number {
    const start = this.blockAt[slot]!;
    let at = start;
    for (let n = this.variantCount[slot]!; n >= 0; n--) at += blockLength(arena, at);
    return at - start;
  }

  private newSlot(): number {
    this.count++;
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    if (this.highWater === this.status.length) this.growSlots(Math.max(1024, this.highWater * 2));
    return this.highWater++;
  }

  private growSlots(capacity: number): void {
    this.status = grown(this.status, capacity);
    this.expiresAt = grown(this.expiresAt, capacity);
    this.clickLimit = grown(this.clickLimit, capacity);
    this.humanClicks = grown(this.humanClicks, capacity);
    this.unsorted = grown(this.unsorted, capacity);
    this.redirectStatus = grown(this.redirectStatus, capacity);
    this.forwardQuery = grown(this.forwardQuery, capacity);
    this.extras = grown(this.extras, capacity);
    this.blockAt = grown(this.blockAt, capacity);
    this.variantCount = grown(this.variantCount, capacity);
    this.domainId = grown(this.domainId, capacity);
    this.slugHash = grown(this.slugHash, capacity);
    this.idHash = grown(this.idHash, capacity);
  }

  /** Writes `slot`'s new entry (its old one, if any, is not carried into a new arena). */
  private writeEntry(blocks: BlockFields[], length: number, slot: number): number {
    // Full: a new arena with only the live entries (the old one is left to the clicks that
    // still point into it).
    if (this.used + length > this.arena.length) this.moveTo(arenaFor(this.liveBytes + length), slot);
    const start = this.used;
    for (const block of blocks) this.used += writeBlock(this.arena, this.used, block);
    this.liveBytes += length;
    return start;
  }

  private moveTo(next: Buffer, skip = -1): void {
    const old = this.arena;
    let used = 0;
    // Entries that follow each other in the old arena (slots are in arena order after a move,
    // and a load appends in slot order) are copied as one run: a move of 1,000,000 links is
    // then a few copies, not one per link.
    let runFrom = 0;
    let runEnd = -1;
    let runTo = 0;
    for (let slot = 0; slot < this.highWater; slot++) {
      if (this.status[slot] === FREE || slot === skip) continue;
      const at = this.blockAt[slot]!;
      const length = this.entryLength(old, slot);
      if (at !== runEnd) {
        if (runEnd >= 0) old.copy(next, runTo, runFrom, runEnd);
        runFrom = at;
        runEnd = at;
        runTo = used;
      }
      runEnd += length;
      this.blockAt[slot] = used;
      used += length;
    }
    if (runEnd >= 0) old.copy(next, runTo, runFrom, runEnd);
    this.arena = next;
    this.used = used;
    this.liveBytes = used;
  }
}

/** Puts `value` in `map` at `slot` (or removes it for null); answers `bit` when kept, else 0. */
function keptIn<T>(map: Map<number, T>, slot: number, value: T | null, bit: number): number {
  if (value === null) {
    map.delete(slot);
    return 0;
  }
  map.set(slot, value);
  return bit;
}

/**
 * An arena for `bytes` of live entries with a quarter more to spare (at least MIN_ARENA): a
 * full arena is rebuilt once its live part has grown by a quarter, never doubled. Not
 * zero-filled: only bytes that were written are ever read (each block says its lengths), and
 * pages not written yet stay out of the resident set.
 */
function arenaFor(bytes: number): Buffer {
  return Buffer.allocUnsafeSlow(bytes + Math.max(MIN_ARENA, Math.ceil(bytes / 4)));
}
