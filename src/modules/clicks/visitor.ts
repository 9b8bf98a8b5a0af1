/**
 * Unique visitors without storing addresses (docs/behaviour.md, "Unique visitors"): a visitor
 * is one (address, user agent) pair per UTC day, kept only as the first 8 bytes of
 * sha256(daily salt, address, user agent). Each UTC day gets its own random salt; salts older
 * than yesterday are deleted, after which nobody (us included) can link a stored hash to an
 * address. Which visitors were seen is kept in memory by the writer (seen-visitors.ts).
 */
import type { Database, Statement } from 'bun:sqlite';
import { sha256Hex } from '../../lib/hash';
import { randomString } from '../../lib/ids';

/** What enrichment needs of the hasher (enrich.ts): the visitor hash of a click. */
export interface VisitorHashes {
  hash(day: number, address: string | null, userAgent: string | null): string;
}

export class VisitorHasher implements VisitorHashes {
  private readonly salts = new Map<number, string>();
  /** Null when a read-only hasher could not read the table: every salt is then made in memory. */
  private readonly select: Statement<{ salt: string }, [number]> | null;
  private readonly sqlite: Database;
  /** Salts made in memory by a read-only hasher, by day. */
  readonly unstored: Map<number, string>;

  /**
   * `readOnly` (a stop that spills, while writes fail): a day without a stored salt gets one
   * made in memory, never written, kept in `unstored` for the spill file (spill.ts), which the
   * replay stores (adopt). `unstored` may start with the salts an earlier spill file holds, so
   * the clicks of one day share one salt.
   */
  constructor(
    sqlite: Database,
    private readonly options: { readOnly?: boolean; unstored?: Map<number, string> } = {},
  ) {
    this.sqlite = sqlite;
    this.unstored = options.unstored ?? new Map();
    const sql = 'SELECT salt FROM visitor_salts WHERE day = ?';
    if (!options.readOnly) this.select = sqlite.prepare(sql);
    else {
      try {
        this.select = sqlite.prepare(sql);
      } catch {
        // A spill must not fail on a database it cannot read.
        this.select = null;
      }
    }
  }

  private saltFor(day: number): string {
    let salt = this.salts.get(day);
    if (salt === undefined) {
      if (this.options.readOnly) salt = this.storedSalt(day) ?? this.unstoredSalt(day);
      else {
        // Stored so that a restart within the day keeps counting the same visitors once.
        this.adopt(day, randomString(32));
        salt = this.select!.get(day)!.salt;
      }
      if (this.salts.size > 4) this.salts.clear();
      this.salts.set(day, salt);
    }
    return salt;
  }

  /** The day's stored salt; null when there is none or it cannot be read (a spill must not fail on it). */
  private storedSalt(day: number): string | null {
    try {
      return this.select?.get(day)?.salt ?? null;
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
    this.sqlite.query('INSERT OR IGNORE INTO visitor_salts (day, salt) VALUES (?, ?)').run(day, salt);
    this.salts.delete(day);
  }

  /** Drops the salts of days before `day`. */
  pruneBefore(day: number): void {
    this.sqlite.query('DELETE FROM visitor_salts WHERE day < ?').run(day);
    for (const key of this.salts.keys()) if (key < day) this.salts.delete(key);
  }
}
