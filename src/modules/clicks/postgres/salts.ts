/**
 * The visitor salts on PostgreSQL (enrich/visitor.ts SaltStore). Hashing is synchronous, so the
 * salts of a batch's days are loaded before it is enriched (`load`): a day without one gets one
 * made and inserted, ON CONFLICT DO NOTHING, and the stored one is read back, so every writer
 * hashes a day's visitors with the same salt.
 */
import { num, type Pg } from '../../../db/postgres/client';
import { randomString } from '../../../lib/ids';
import type { SaltStore } from '../enrich/visitor';

export class PgSalts implements SaltStore {
  private readonly salts = new Map<number, string>();
  /** Salts adopted (a spill file's) and not stored yet: stored at the next load. */
  private adopted = new Map<number, string>();

  constructor(private readonly sql: Pg) {}

  read(day: number): string | null {
    return this.salts.get(day) ?? null;
  }

  adopt(day: number, salt: string): void {
    if (!this.salts.has(day)) this.adopted.set(day, salt);
  }

  pruneBefore(day: number): void {
    for (const d of this.salts.keys()) if (d < day) this.salts.delete(d);
  }

  /** Makes the salts of these days known here, storing a new one for a day that has none. */
  async load(days: Iterable<number>): Promise<void> {
    const wanted = [...new Set(days)].filter((d) => !this.salts.has(d));
    if (wanted.length === 0 && this.adopted.size === 0) return;
    const made = new Map(this.adopted);
    for (const d of wanted) if (!made.has(d)) made.set(d, randomString(32));
    this.adopted = new Map();
    const dayList = [...made.keys()];
    await this.sql`INSERT INTO visitor_salts (day, salt)
      SELECT * FROM unnest(${this.sql.array(dayList, 'int4')}::int4[], ${this.sql.array(
        dayList.map((d) => made.get(d)!),
        'text',
      )}::text[]) ORDER BY 1 ON CONFLICT (day) DO NOTHING`;
    const rows = await this
      .sql`SELECT day, salt FROM visitor_salts WHERE day = ANY(${this.sql.array(dayList, 'int4')}::int4[])`;
    for (const r of rows) this.salts.set(num(r.day), r.salt as string);
  }

  /**
   * Deletes the stored salts of days before `day` (after which their hashes link to nobody), in
   * the caller's transaction; `pruneBefore` forgets them here once it committed.
   */
  async deleteBefore(tx: Pg, day: number): Promise<void> {
    await tx`DELETE FROM visitor_salts WHERE day < ${day}`;
  }
}
