/**
 * The change feed on SQLite (links/changes.ts): every process that writes links to one file
 * (`slink serve`, and beside it `slink import` or any operator command) adds a `link_changes`
 * row naming the links each write touched, in the write's own transaction; the service follows
 * the rows (redirect/link-follower.ts, by its poll: SQLite has no notifications between
 * processes), so a link another process wrote redirects within a poll. Numbers are SQLite's
 * AUTOINCREMENT, given under the file's single write lock in commit order and never reused: a
 * reader that sees a number above the one after its own knows the rows between were pruned.
 */
import type { Database } from 'bun:sqlite';
import type { ChangesSince, LinkChangeFeed } from '../changes';

/** Announces, inside the writing transaction, that these links' redirect facts changed. */
export function announceLinkChangesSqlite(sqlite: Database, instance: string, ids: readonly string[]): void {
  if (ids.length === 0) return;
  sqlite
    .query('INSERT INTO link_changes (instance, ids, at) VALUES (?, ?, ?)')
    .run(instance, JSON.stringify([...new Set(ids)]), Date.now());
}

export function createSqliteLinkChangeFeed(sqlite: Database, instance: string): LinkChangeFeed {
  const head = sqlite.query<{ seq: number | null }, []>('SELECT max(seq) AS seq FROM link_changes');
  const after = sqlite.query<{ seq: number; instance: string; ids: string }, [number, number]>(
    'SELECT seq, instance, ids FROM link_changes WHERE seq > ? ORDER BY seq LIMIT ?',
  );
  return {
    async head() {
      return head.get()?.seq ?? 0;
    },
    async since(seq, limit): Promise<ChangesSince> {
      const rows = after.all(seq, limit);
      return {
        gap: rows.length > 0 && rows[0]!.seq > seq + 1,
        changes: rows.map((r) => ({ seq: r.seq, ids: r.instance === instance ? [] : (JSON.parse(r.ids) as string[]) })),
      };
    },
    async listen() {
      // No notifications between processes on one file: the follower's poll reads the changes.
      return async () => {};
    },
    async prune(keptMs) {
      // The newest change stays, so `head` never goes back.
      return sqlite
        .query('DELETE FROM link_changes WHERE at < ? AND seq < (SELECT max(seq) FROM link_changes)')
        .run(Date.now() - keptMs).changes;
    },
  };
}
