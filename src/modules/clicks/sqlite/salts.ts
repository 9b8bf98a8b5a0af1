/** The visitor salts on SQLite (enrich/visitor.ts): one `visitor_salts` row per UTC day. */
import type { Database, Statement } from 'bun:sqlite';
import type { SaltReader, SaltStore } from '../enrich/visitor';

export function sqliteSalts(sqlite: Database): SaltStore {
  const select = sqlite.prepare<{ salt: string }, [number]>('SELECT salt FROM visitor_salts WHERE day = ?');
  return {
    read: (day) => select.get(day)?.salt ?? null,
    adopt: (day, salt) => {
      sqlite.query('INSERT OR IGNORE INTO visitor_salts (day, salt) VALUES (?, ?)').run(day, salt);
    },
    pruneBefore: (day) => {
      sqlite.query('DELETE FROM visitor_salts WHERE day < ?').run(day);
    },
  };
}

/**
 * The salts as a stop that spills reads them, while writes may fail: nothing is written, and a
 * database it cannot read (the statement cannot even be prepared) reads as having no salt.
 */
export function readOnlySalts(sqlite: Database): SaltReader {
  let select: Statement<{ salt: string }, [number]> | null = null;
  try {
    select = sqlite.prepare('SELECT salt FROM visitor_salts WHERE day = ?');
  } catch {
    // A spill must not fail on a database it cannot read.
  }
  return { read: (day) => select?.get(day)?.salt ?? null };
}
