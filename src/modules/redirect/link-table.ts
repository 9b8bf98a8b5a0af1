/**
 * The slug index's storage (link-index.ts): every link's redirect facts in typed arrays and one
 * arena of blocks (clicks/target-block.ts) instead of a few objects, strings and map entries
 * per link. Measured at 100,000 links:
 * ~12 MB instead of ~44 MB of heap, and no object graph for the collector to walk
 * (docs/performance.md, "Where the idle RSS is"). A lookup hashes the slug, probes an
 * open-addressing table and compares bytes; the `Location` is decoded per redirect (~50 ns).
 *
 * A block is written once and never rewritten: a changed link gets a new block, and a full
 * arena is replaced by a new one holding only the live blocks. A buffered click keeps the arena
 * and offset of its link's block (ClickRecord), so it records the link as it was when clicked,
 * whatever happens to it later.
 */
import { type ClickLinks, type ClickVariant, targetSerial } from '../clicks/record';
import {
  type BlockFields,
  blockLength,
  blockLinkId,
  blockLocation,
  blockSize,
  blockSlug,
  BLOCK_HEADER as HEADER,
  writeBlock,
} from '../clicks/target-block';

import type { RedirectRow } from '../links/repo';

type LinkStatus = RedirectRow['status'];
/** A slot's status code: FREE (no link), then the link's status. */
export const FREE = 0;
export const PAUSED = 2;
export const STATUS_NAMES: readonly (LinkStatus | null)[] = [null, 'active', 'paused', 'archived'];

export interface LinkFacts {
  id: string;
  slug: string;
  status: LinkStatus;
  expiresAt: number | null;
  clickLimit: number | null;
  /** The Location header value: destination with the effective params applied. */
  location: string;
  /** Effective params as JSON, `{}` when none. */
  paramsJson: string;
}

const EMPTY = -1;
const GONE = -2;
const MIN_ARENA = 64 * 1024;

/** FNV-1a over UTF-16 code units: slugs and ids are ASCII, so the same as over their bytes. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** An open-addressing table of slots by a string's hash (linear probing, tombstones on delete). */
class SlotHash {
  private slots = new Int32Array(16).fill(EMPTY);
  /** Cells not EMPTY (live and GONE): what decides a rebuild. */
  private filled = 0;

  constructor(
    /** The stored hash of a slot's key. */
    private readonly hashAt: () => Uint32Array,
    /** Whether a slot's key equals `key`. */
    private readonly keyIs: (slot: number, key: string) => boolean,
  ) {}

  find(key: string, hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    const hashes = this.hashAt();
    for (let p = hash & mask; ; p = (p + 1) & mask) {
      const slot = slots[p]!;
      if (slot === EMPTY) return -1;
      if (slot >= 0 && hashes[slot] === hash && this.keyIs(slot, key)) return slot;
    }
  }

  /** Points `key` at `slot`, replacing what it pointed at (the hash is already stored for `slot`). */
  set(key: string, hash: number, slot: number, live: number): void {
    const existing = this.cell(key, hash);
    if (existing >= 0) {
      this.slots[existing] = slot;
      return;
    }
    if ((this.filled + 1) * 2 > this.slots.length) this.rebuild(live + 1);
    const slots = this.slots;
    const mask = slots.length - 1;
    let p = hash & mask;
    while (slots[p]! >= 0) p = (p + 1) & mask;
    if (slots[p] === EMPTY) this.filled++;
    slots[p] = slot;
  }

  /** Forgets `key` if it points at `slot`. */
  delete(key: string, hash: number, slot: number): void {
    const cell = this.cell(key, hash);
    if (cell >= 0 && this.slots[cell] === slot) this.slots[cell] = GONE;
  }

  private cell(key: string, hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    const hashes = this.hashAt();
    for (let p = hash & mask; ; p = (p + 1) & mask) {
      const slot = slots[p]!;
      if (slot === EMPTY) return -1;
      if (slot >= 0 && hashes[slot] === hash && this.keyIs(slot, key)) return p;
    }
  }

  /** A table at most a quarter full for `live` keys, without tombstones. */
  private rebuild(live: number): void {
    const old = this.slots;
    let size = 16;
    while (size < live * 4) size *= 2;
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
  /** The link's stored human clicks plus its buffered clicks known to be human (record.ts). */
  humanClicks = new Float64Array(0);
  /** Buffered clicks not yet classified as human or bot. */
  unsorted = new Int32Array(0);
  /** Where the slot's block starts in `arena`. */
  blockAt = new Uint32Array(0);
  private slugHash = new Uint32Array(0);
  private idHash = new Uint32Array(0);
  /** The current arena; buffered clicks may keep older ones alive until they are written. */
  arena: Buffer = Buffer.alloc(MIN_ARENA);
  private used = 0;
  /** Bytes of the live blocks (the rest of `used` is blocks replaced or removed). */
  private liveBytes = 0;
  private highWater = 0;
  private readonly freeSlots: number[] = [];
  private count = 0;
  /** Few links have variants: theirs stay plain objects, by slot and then code. */
  private readonly variants = new Map<number, ReadonlyMap<string, ClickVariant>>();
  private readonly bySlug = new SlotHash(
    () => this.slugHash,
    (slot, slug) => this.slugIs(slot, slug),
  );
  private readonly byId = new SlotHash(
    () => this.idHash,
    (slot, id) => this.idIs(slot, id),
  );

  get size(): number {
    return this.count;
  }

  /** The slot of a slug (case-sensitive), or -1. */
  find(slug: string): number {
    return this.bySlug.find(slug, hashOf(slug));
  }

  findId(id: string): number {
    return this.byId.find(id, hashOf(id));
  }

  /** A variant's target by code, or undefined (then the click goes to the link itself). */
  variant(slot: number, code: string): ClickVariant | undefined {
    return this.variants.get(slot)?.get(code);
  }

  variantsOf(slot: number): ReadonlyMap<string, ClickVariant> {
    return this.variants.get(slot) ?? new Map();
  }

  location(slot: number): string {
    return blockLocation(this.arena, this.blockAt[slot]!);
  }

  slug(slot: number): string {
    return blockSlug(this.arena, this.blockAt[slot]!);
  }

  linkId(slot: number): string {
    return blockLinkId(this.arena, this.blockAt[slot]!);
  }

  /**
   * Stores a link: the same slot (and counters) when its id is known, else a new slot whose
   * human count starts at `storedHumanClicks`. Returns the slot.
   */
  put(facts: LinkFacts, variants: ReadonlyMap<string, ClickVariant>, storedHumanClicks: number): number {
    // Sized (and checked) before anything changes: a refused link leaves the table as it was.
    const block = { serial: targetSerial(), ...facts };
    const length = blockSize(block);
    let slot = this.findId(facts.id);
    if (slot >= 0) {
      const oldSlug = this.slug(slot);
      if (oldSlug !== facts.slug) this.bySlug.delete(oldSlug, this.slugHash[slot]!, slot);
      this.liveBytes -= blockLength(this.arena, this.blockAt[slot]!);
    } else {
      slot = this.newSlot();
      this.humanClicks[slot] = storedHumanClicks;
      this.unsorted[slot] = 0;
      this.idHash[slot] = hashOf(facts.id);
    }
    this.blockAt[slot] = this.writeBlock(block, length, slot);
    this.slugHash[slot] = hashOf(facts.slug);
    this.status[slot] = STATUS_NAMES.indexOf(facts.status);
    this.expiresAt[slot] = facts.expiresAt ?? Number.NaN;
    this.clickLimit[slot] = facts.clickLimit ?? Number.NaN;
    if (variants.size > 0) this.variants.set(slot, variants);
    else this.variants.delete(slot);
    this.byId.set(facts.id, this.idHash[slot]!, slot, this.count);
    this.bySlug.set(facts.slug, this.slugHash[slot]!, slot, this.count);
    return slot;
  }

  /** Forgets a link; its slot may be reused (its buffered clicks must be gone: ClickBuffer.dropLink). */
  remove(slot: number): void {
    const at = this.blockAt[slot]!;
    this.bySlug.delete(blockSlug(this.arena, at), this.slugHash[slot]!, slot);
    this.byId.delete(blockLinkId(this.arena, at), this.idHash[slot]!, slot);
    this.liveBytes -= blockLength(this.arena, at);
    this.status[slot] = FREE;
    this.variants.delete(slot);
    this.freeSlots.push(slot);
    this.count--;
  }

  /** Moves the live blocks to an arena with `slack` spare bytes (after a load: no doubling left over). */
  compact(slack = MIN_ARENA): void {
    this.moveTo(Buffer.alloc(this.liveBytes + slack));
  }

  /** Bytes held: the arrays, the hash tables and the arena (not older arenas buffered clicks keep). */
  get bytes(): number {
    const arrays = [this.status, this.expiresAt, this.clickLimit, this.humanClicks, this.unsorted, this.blockAt];
    return (
      arrays.reduce((sum, a) => sum + a.byteLength, 0) +
      this.slugHash.byteLength +
      this.idHash.byteLength +
      this.bySlug.bytes +
      this.byId.bytes +
      this.arena.byteLength
    );
  }

  private slugIs(slot: number, slug: string): boolean {
    const at = this.blockAt[slot]!;
    return this.bytesAre(at + HEADER, this.arena.readUInt16LE(at + 4), slug);
  }

  private idIs(slot: number, id: string): boolean {
    const at = this.blockAt[slot]!;
    const arena = this.arena;
    return this.bytesAre(at + HEADER + arena.readUInt16LE(at + 4), arena.readUInt16LE(at + 6), id);
  }

  /** Whether the arena's `length` bytes at `start` are `text` (ASCII, one byte per character). */
  private bytesAre(start: number, length: number, text: string): boolean {
    if (length !== text.length) return false;
    const arena = this.arena;
    for (let i = 0; i < length; i++) if (arena[start + i] !== text.charCodeAt(i)) return false;
    return true;
  }

  private newSlot(): number {
    this.count++;
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    if (this.highWater === this.status.length) this.growSlots(Math.max(1024, this.highWater * 2));
    return this.highWater++;
  }

  private growSlots(capacity: number): void {
    const grow = <T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(
      old: T,
      make: (n: number) => T,
    ): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.status = grow(this.status, (n) => new Uint8Array(n));
    this.expiresAt = grow(this.expiresAt, (n) => new Float64Array(n));
    this.clickLimit = grow(this.clickLimit, (n) => new Float64Array(n));
    this.humanClicks = grow(this.humanClicks, (n) => new Float64Array(n));
    this.unsorted = grow(this.unsorted, (n) => new Int32Array(n));
    this.blockAt = grow(this.blockAt, (n) => new Uint32Array(n));
    this.slugHash = grow(this.slugHash, (n) => new Uint32Array(n));
    this.idHash = grow(this.idHash, (n) => new Uint32Array(n));
  }

  /** Writes `slot`'s new block (its old one, if any, is not carried into a new arena). */
  private writeBlock(block: BlockFields, length: number, slot: number): number {
    // Full: a new arena with only the live blocks, twice their size (the old one is left to
    // the clicks that still point into it).
    if (this.used + length > this.arena.length)
      this.moveTo(Buffer.alloc(Math.max(MIN_ARENA, 2 * (this.liveBytes + length))), slot);
    const at = this.used;
    writeBlock(this.arena, at, block);
    this.used += length;
    this.liveBytes += length;
    return at;
  }

  private moveTo(next: Buffer, skip = -1): void {
    const old = this.arena;
    let used = 0;
    for (let slot = 0; slot < this.highWater; slot++) {
      if (this.status[slot] === FREE || slot === skip) continue;
      const at = this.blockAt[slot]!;
      const length = blockLength(old, at);
      old.copy(next, used, at, at + length);
      this.blockAt[slot] = used;
      used += length;
    }
    this.arena = next;
    this.used = used;
    this.liveBytes = used;
  }
}
