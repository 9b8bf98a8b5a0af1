/**
 * Unique visitors without storing addresses (docs/behaviour.md, "Unique visitors"): a visitor
 * is one (address, user agent) pair per UTC day, kept only as the first 8 bytes of
 * sha256(daily salt, address, user agent). Each UTC day gets its own random salt; salts older
 * than yesterday are deleted, after which nobody (us included) can link a stored hash to an
 * address. Which visitors were seen is kept in memory by the writer (seen-visitors.ts).
 */
import type { Database } from 'bun:sqlite';
import { sha256Hex } from '../../lib/hash';
import { randomString } from '../../lib/ids';

export class VisitorHasher {
  private readonly salts = new Map<number, string>();
  private readonly select;
  private readonly insert;
  private readonly deleteSalts;

  constructor(sqlite: Database) {
    this.select = sqlite.prepare<{ salt: string }, [number]>('SELECT salt FROM visitor_salts WHERE day = ?');
    this.insert = sqlite.prepare('INSERT OR IGNORE INTO visitor_salts (day, salt) VALUES (?, ?)');
    this.deleteSalts = sqlite.prepare('DELETE FROM visitor_salts WHERE day < ?');
  }

  private saltFor(day: number): string {
    let salt = this.salts.get(day);
    if (salt === undefined) {
      // Stored so that a restart within the day keeps counting the same visitors once.
      this.insert.run(day, randomString(32));
      salt = this.select.get(day)!.salt;
      if (this.salts.size > 4) this.salts.clear();
      this.salts.set(day, salt);
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

  /** Drops the salts of days before `day`. */
  pruneBefore(day: number): void {
    this.deleteSalts.run(day);
    for (const key of this.salts.keys()) if (key < day) this.salts.delete(key);
  }
}
