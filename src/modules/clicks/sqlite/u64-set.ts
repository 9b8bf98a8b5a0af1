/**
 * A set of 64-bit keys in one typed array (open addressing, linear probing), each key given as
 * two 32-bit halves. The click writer keeps a day's (link, visitor) pairs in one: a JavaScript
 * Set of strings costs ~100 bytes per entry, this costs 8 bytes per slot at most half full.
 * Keys are never removed; a day's set is dropped whole. The all-zero key marks an empty slot,
 * so it is stored as (0, 1): one more pair in 2^64 that could be mistaken for another.
 */
export class U64Set {
  private slots: Uint32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1024) {
    let n = 1024;
    while (n < capacity * 2) n *= 2;
    this.slots = new Uint32Array(n * 2);
    this.mask = n - 1;
  }

  /** Whether the key is in the set. */
  has(hi: number, lo: number): boolean {
    if ((hi | lo) === 0) lo = 1;
    const at = this.find(hi >>> 0, lo >>> 0) * 2;
    return this.slots[at] !== 0 || this.slots[at + 1] !== 0;
  }

  /** Adds the key; true when it was not in the set. */
  add(hi: number, lo: number): boolean {
    if ((hi | lo) === 0) lo = 1;
    hi >>>= 0;
    lo >>>= 0;
    const at = this.find(hi, lo) * 2;
    if (this.slots[at] !== 0 || this.slots[at + 1] !== 0) return false;
    this.slots[at] = hi;
    this.slots[at + 1] = lo;
    // At most half full: probes stay short.
    if (++this.size * 2 > this.mask + 1) this.grow();
    return true;
  }

  clear(): void {
    if (this.size === 0) return;
    this.slots.fill(0);
    this.size = 0;
  }

  /** The slot of the key, or of the empty slot where it would go. */
  private find(hi: number, lo: number): number {
    const slots = this.slots;
    // The halves are hash output already: mixing them once spreads them over the table.
    let i = Math.imul(hi ^ lo, 0x9e3779b1) & this.mask;
    for (;;) {
      const h = slots[i * 2]!;
      const l = slots[i * 2 + 1]!;
      if ((h === hi && l === lo) || (h === 0 && l === 0)) return i;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) {
      const h = old[i]!;
      const l = old[i + 1]!;
      if (h === 0 && l === 0) continue;
      const at = this.find(h, l) * 2;
      this.slots[at] = h;
      this.slots[at + 1] = l;
    }
  }
}
