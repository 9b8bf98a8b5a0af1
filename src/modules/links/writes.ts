/**
 * The one way to write `links`, `link_tags` and `variants` rows, and to create a link's
 * `link_counters` row, so that the in-memory slug index (redirect/link-index.ts) cannot be left
 * stale. Every function that writes them takes a LinkWrite, and the only way to get one is
 * writeLinks: it runs the callback in one IMMEDIATE transaction, the write functions record the
 * links they touch, and after COMMIT the index re-reads each of them (forgetting the deleted).
 * A rolled-back write never reaches the index.
 * The click writer's additions to the counters (links/counters.ts) are not redirect facts and do
 * not come here.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { Deps } from '../../deps';
import { deleteLinkClicks } from '../clicks/public';
import { forgetLinkRollups } from '../rollups/public';
import { type LinkFields, type LinkRow, links, linkTags } from './table';

/** Proof of being inside writeLinks. Exported as a type only: nothing else can make one. */
class LinkWrite {
  /** The links written so far; null once the transaction has ended. */
  #touched: Set<string> | null = new Set();

  /** `db` is the connection, inside the transaction. */
  constructor(readonly db: Db) {}

  /** Records that a link's rows, or its variants', are about to change: call it before writing. */
  touch(linkId: string): void {
    // After the end means after an await in the callback: bun:sqlite has committed, so refuse.
    if (this.#touched === null) throw new Error('LinkWrite used after its transaction ended (async callback?)');
    this.#touched.add(linkId);
  }

  static end(w: LinkWrite): Set<string> {
    const touched = w.#touched ?? new Set<string>();
    w.#touched = null;
    return touched;
  }
}

export type { LinkWrite };

/** A callback's result, unless it is a promise: a transaction callback must not await. */
type Sync<T> = T extends PromiseLike<unknown> ? never : T;

/** Runs `write` in one transaction; after COMMIT, refreshes the slug index for every link it touched. */
export function writeLinks<T>(deps: Pick<Deps, 'db' | 'linkIndex'>, write: (w: LinkWrite) => Sync<T>): T {
  // Inside an outer transaction this one would only be a savepoint: the refresh would run before COMMIT.
  if (deps.db.$client.inTransaction) throw new Error('writeLinks must not run inside another transaction');
  const w = new LinkWrite(deps.db);
  let touched: Set<string>;
  let result: T;
  try {
    // IMMEDIATE: the write lock first, so the click writer's connection cannot make it fail halfway.
    result = deps.db.transaction(
      () => {
        const value = write(w);
        // bun:sqlite would have committed at the callback's first await: roll back instead.
        if (value instanceof Promise) throw new Error('writeLinks needs a synchronous callback');
        return value;
      },
      { behavior: 'immediate' },
    );
  } finally {
    touched = LinkWrite.end(w);
  }
  deps.linkIndex.refreshMany(touched);
  return result;
}

function insertTags(w: LinkWrite, linkId: string, tags: string[]): void {
  const insert = w.db.$client.query<unknown, [string, string]>('INSERT INTO link_tags (link_id, tag) VALUES (?, ?)');
  for (const tag of tags) insert.run(linkId, tag);
}

type Value = string | number | null;

/**
 * Each link with its counters row (every link has exactly one) and its tags. Through statements
 * bun:sqlite compiles once and caches (`query`): row by row through drizzle a link cost ~170 us
 * inside the write transaction, and a 200-line bulk create held the event loop and the write
 * lock ~50 ms for its inserts alone, against 12-22 ms this way (docs/performance.md, "Bulk create").
 */
export function insertLinks(w: LinkWrite, items: { row: LinkRow; tags: string[] }[]): void {
  const sqlite = w.db.$client;
  const insertLink = sqlite.query<unknown, Value[]>(
    `INSERT INTO links (id, slug, destination, title, status, params, project_id, expires_at, click_limit,
      created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertCounters = sqlite.query<unknown, Value[]>(
    'INSERT INTO link_counters (link_id, clicks, uniques, bots, last_clicked_at) VALUES (?, ?, ?, ?, ?)',
  );
  for (const { row, tags } of items) {
    w.touch(row.id);
    insertLink.run(
      row.id,
      row.slug,
      row.destination,
      row.title,
      row.status,
      JSON.stringify(row.params),
      row.projectId,
      row.expiresAt,
      row.clickLimit,
      row.createdAt,
      row.updatedAt,
    );
    insertCounters.run(row.id, row.clickCount, row.uniqueCount, row.botCount, row.lastClickedAt);
    insertTags(w, row.id, tags);
  }
}

/** Changes the fields given; `tags`, when given, replace the link's tags. */
export function updateLinkRow(w: LinkWrite, id: string, changes: Partial<LinkFields>, tags?: string[]): void {
  w.touch(id);
  if (Object.keys(changes).length) w.db.update(links).set(changes).where(eq(links.id, id)).run();
  if (tags) {
    w.db.delete(linkTags).where(eq(linkTags.linkId, id)).run();
    insertTags(w, id, tags);
  }
}

/**
 * The only way a link row goes: its rollups leave the workspace's and its raw clicks go in the
 * same transaction (variants, tags and counters go by foreign-key cascade: every connection
 * sets foreign_keys, db/client.ts), so workspace statistics never count a link that no longer
 * exists.
 */
export function deleteLinkRow(w: LinkWrite, id: string): void {
  w.touch(id);
  forgetLinkRollups(w.db.$client, id);
  deleteLinkClicks(w.db.$client, id);
  w.db.delete(links).where(eq(links.id, id)).run();
}

export function setLinkParams(
  w: LinkWrite,
  updates: { id: string; params: Record<string, string>; updatedAt: number }[],
): void {
  for (const u of updates) {
    w.touch(u.id);
    w.db.update(links).set({ params: u.params, updatedAt: u.updatedAt }).where(eq(links.id, u.id)).run();
  }
}

export function setLinkProjects(
  w: LinkWrite,
  moves: { id: string; updatedAt: number }[],
  projectId: string | null,
): void {
  for (const m of moves) {
    w.touch(m.id);
    w.db.update(links).set({ projectId, updatedAt: m.updatedAt }).where(eq(links.id, m.id)).run();
  }
}

/** Moves every link of a project to "unfiled"; returns how many moved. */
export function unfileProjectLinks(w: LinkWrite, projectId: string, now: number): number {
  const moving = w.db.select({ id: links.id }).from(links).where(eq(links.projectId, projectId)).all();
  for (const { id } of moving) w.touch(id);
  w.db.update(links).set({ projectId: null, updatedAt: now }).where(eq(links.projectId, projectId)).run();
  return moving.length;
}
