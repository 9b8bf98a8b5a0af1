/**
 * Unique visitors without storing addresses (docs/behaviour.md, "Unique visitors"): a visitor
 * is one (address, user agent) pair per UTC day, kept only as the first 8 bytes of
 * sha256(daily salt, address, user agent). Each UTC day gets its own random salt; salts older
 * than yesterday are deleted, after which nobody (us included) can link a stored hash to an
 * address. Where the salts are stored is the engine's (SaltStore: sqlite/salts.ts).
 */
import { sha256Hex } from '../../../lib/hash';
import { randomString } from '../../../lib/ids';

/** What enrichment needs of the hasher (enrich.ts): the visitor hash of a click. */
export interface VisitorHashes {
  hash(day: number, address: string | null, userAgent: string | null): string;
}

/** Reads a day's stored salt (null: none); may throw when the database cannot be read. */
export interface SaltReader {
  read(day: number): string | null;
}

/** The stored salts of an engine, read and written synchronously (on PostgreSQL: loaded ahead of a batch). */
export interface SaltStore extends SaltReader {
  /** Stores `salt` for `day` unless the day has one already. */
  adopt(day: number, salt: string): void;
  /** Deletes the salts of days before `day`. */
  pruneBefore(day: number): void;
}

export class VisitorHasher implements VisitorHashes {
  private readonly salts = new Map<number, string>();
  /** Salts made in memory by a read-only hasher, by day. */
  readonly unstored: Map<number, string>;

  /**
   * `readOnly` (a stop that spills, while writes fail): a day without a stored salt gets one
   * made in memory, never written, kept in `unstored` for the spill file (capture/spill.ts),
   * which the replay stores (adopt). `unstored` may start with the salts an earlier spill file
   * holds, so the clicks of one day share one salt.
   */
  constructor(
    private readonly store: SaltReader | SaltStore,
    private readonly options: { readOnly?: boolean; unstored?: Map<number, string> } = {},
  ) {
    this.unstored = options.unstored ?? new Map();
  }

  private saltFor(day: number): string {
    let salt = this.salts.get(day);
    if (salt === undefined) {
      if (this.options.readOnly) salt = this.storedSalt(day) ?? this.unstoredSalt(day);
      else {
        // Stored so that a restart within the day keeps counting the same visitors once.
        this.adopt(day, randomString(32));
        salt = this.store.read(day)!;
      }
      if (this.salts.size > 4) this.salts.clear();
      this.salts.set(day, salt);
    }
    return salt;
  }

  /** The day's stored salt; null when there is none or it cannot be read (a spill must not fail on it). */
  private storedSalt(day: number): string | null {
    try {
      return this.store.read(day);
    } catch {
      return null;
    }
  }

  private unstoredSalt(day: number): string {
    let salt = this.unstored.get(day);
    if (salt === undefined) {
      salt = randomString(32);
      this.unstored.set(day, salt);
    }
    return salt;
  }

  private writable(): SaltStore {
    if (this.options.readOnly || !('adopt' in this.store)) throw new Error('this visitor hasher is read-only');
    return this.store;
  }

  /**
   * 16 hex characters (64 bits): with a million visitors on a link in a day, two of them share
   * a hash with a chance of about one in 36 million; and nothing to reverse.
   */
  hash(day: number, address: string | null, userAgent: string | null): string {
    return sha256Hex(`${this.saltFor(day)}\n${address ?? ''}\n${userAgent ?? ''}`).slice(0, 16);
  }

  /**
   * Stores `salt`, made for `day` by a read-only hasher (a spill file's), unless the day has one
   * already: later clicks of that day then hash their visitors the same way.
   */
  adopt(day: number, salt: string): void {
    this.writable().adopt(day, salt);
    this.salts.delete(day);
  }

  /** Drops the salts of days before `day`. */
  pruneBefore(day: number): void {
    this.writable().pruneBefore(day);
    for (const key of this.salts.keys()) if (key < day) this.salts.delete(key);
  }
}
