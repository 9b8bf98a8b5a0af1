/**
 * The change feed between nodes (several nodes on one PostgreSQL; docs/operations.md, "Several
 * nodes"): each node keeps every link's redirect facts in memory (redirect/link-index.ts), so a
 * link written through one node must reach the others' memory. Every link write announces the
 * links it touched in its own transaction (links/postgres/changes.ts); every node follows the
 * announcements (redirect/link-follower.ts). On SQLite the same feed runs between the processes
 * on one file (links/sqlite/changes.ts): a service learns of the links an operator command
 * (`slink import`) wrote beside it.
 */

/**
 * The id a change names when the domains changed (a domain added, changed or removed): a node
 * reads every domain again. Link ids never look like it.
 */
export const DOMAINS_CHANGED = '*domains';

export interface LinkChange {
  /** The change's number: committed in increasing order. */
  seq: number;
  /** The links touched; empty when this process made the change (its index follows it already). */
  ids: string[];
}

export interface ChangesSince {
  changes: LinkChange[];
  /** Some changes after the number asked for were pruned: the reader must reload every link. */
  gap: boolean;
}

export interface LinkChangeFeed {
  /** The number of the newest change committed (0 when none): where a node that loads every link starts following. */
  head(): Promise<number>;
  /** The changes after `seq`, oldest first, at most `limit`. */
  since(seq: number, limit: number): Promise<ChangesSince>;
  /** Calls `wake` whenever a change is committed; resolves once listening, with what stops it. */
  listen(wake: () => void): Promise<() => Promise<void>>;
  /** Deletes the changes older than `keptMs` by the database's clock, except the newest; returns how many went. */
  prune(keptMs: number): Promise<number>;
}
