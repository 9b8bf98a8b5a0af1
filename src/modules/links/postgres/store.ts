/**
 * The links store on PostgreSQL. Rows come back snake_case with int8 as strings: `toLinkRow`
 * and `toRedirectRow` are the one place they become the shapes the other layers know. Params
 * are JSON text (not jsonb, which would reorder their keys).
 */

import { num, numOrNull, type Pg, type PgFragment, storable, storableKeys } from '../../../db/postgres/client';
import { CLICK_BARRIER_LOCK, LINK_CREATE_LOCK } from '../../../db/postgres/locks';
import { pipelined } from '../../../db/postgres/pipelined';
import type { WriteTx } from '../../../lib/write-tx';
import { type Audited, entriesFor, insertAuditPostgres } from '../../audit/public';
import { deleteVariantPostgres, insertVariantPostgres, updateVariantPostgres } from '../../variants/public';
import { linkDeletedEvents, linkEvents, type NewEvent, recordEventsPostgres } from '../../webhooks/public';
import { availabilityConditionPg } from '../availability';
import { pageOf } from '../page';
import type { LinkFilter, LinkRow, LinkStore, LinkWrites, NewLink, RedirectRow } from '../store';
import type { LinkFields } from '../table';
import { type Visible, visiblePg } from '../visible';
import { announceLinkChanges } from './changes';
import { clickOrderRows } from './click-order';
import { pastKey } from './keyset';

type Int8 = string | number;

interface PgLinkRow {
  id: string;
  slug: string;
  destination: string;
  title: string | null;
  status: LinkRow['status'];
  domain_id: number;
  params: string;
  project_id: string | null;
  expires_at: Int8 | null;
  click_limit: Int8 | null;
  fallback_url: string | null;
  redirect_status: number;
  forward_query: boolean;
  password_hash: string | null;
  rules: string | null;
  preview: string | null;
  created_at: Int8;
  updated_at: Int8;
  clicks: Int8;
  uniques: Int8;
  bots: Int8;
  last_clicked_at: Int8 | null;
  fallback_visits: Int8;
  imported_source: string | null;
  imported_at: Int8 | null;
  imported_history: string | null;
  imported_clicks: Int8 | null;
}

/** The redirect rows' click names (RedirectRow.clickNames). */
interface PgClickNames {
  value_id: Int8 | null;
  /** JSON text: [[id, destination, params], ...], or null: none. */
  plain_targets: string | null;
}

function toLinkRow(r: PgLinkRow): LinkRow {
  return {
    id: r.id,
    slug: r.slug,
    domainId: r.domain_id,
    destination: r.destination,
    title: r.title,
    status: r.status,
    params: JSON.parse(r.params),
    projectId: r.project_id,
    expiresAt: numOrNull(r.expires_at),
    clickLimit: numOrNull(r.click_limit),
    fallbackUrl: r.fallback_url,
    redirectStatus: r.redirect_status,
    forwardQuery: r.forward_query,
    passwordHash: r.password_hash,
    rules: jsonOrNull(r.rules),
    preview: jsonOrNull(r.preview),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    clickCount: num(r.clicks),
    uniqueCount: num(r.uniques),
    botCount: num(r.bots),
    lastClickedAt: numOrNull(r.last_clicked_at),
    fallbackCount: num(r.fallback_visits),
    importedSource: r.imported_source,
    importedAt: numOrNull(r.imported_at),
    importedHistory: r.imported_history,
    importedClicks: numOrNull(r.imported_clicks),
  };
}

function toRedirectRow(r: PgLinkRow & Partial<PgClickNames>): RedirectRow {
  return {
    ...(r.value_id === undefined
      ? {}
      : {
          clickNames: {
            value: r.value_id === null ? 0 : num(r.value_id),
            plainTargets: r.plain_targets ? JSON.parse(r.plain_targets) : [],
          },
        }),
    id: r.id,
    slug: r.slug,
    domainId: r.domain_id,
    status: r.status,
    destination: r.destination,
    params: JSON.parse(r.params),
    expiresAt: numOrNull(r.expires_at),
    clickLimit: numOrNull(r.click_limit),
    clickCount: num(r.clicks),
    fallbackUrl: r.fallback_url,
    redirectStatus: r.redirect_status,
    forwardQuery: r.forward_query,
    passwordHash: r.password_hash,
    rules: jsonOrNull(r.rules),
    preview: jsonOrNull(r.preview),
  };
}

function jsonOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function filterSql(sql: Pg, filter: LinkFilter) {
  // A filter text holding NUL matches no link (client.ts, storable).
  if ([filter.q, filter.tag, filter.project].some((text) => text !== undefined && !storable(text))) return sql`FALSE`;
  let where = filter.status ? sql`l.status = ${filter.status}` : sql`l.status IN ('active', 'paused')`;
  if (filter.q) {
    // As SQLite's LIKE: ASCII letters without regard to case, nothing else folded.
    const pattern = `%${escapeLike(filter.q)}%`;
    where = sql`${where} AND (slink_ascii_lower(l.slug) LIKE slink_ascii_lower(${pattern})
      OR slink_ascii_lower(l.title) LIKE slink_ascii_lower(${pattern})
      OR slink_ascii_lower(l.destination) LIKE slink_ascii_lower(${pattern}))`;
  }
  if (filter.tag !== undefined) {
    where = sql`${where} AND EXISTS (SELECT 1 FROM link_tags t WHERE t.link_id = l.id AND t.tag = ${filter.tag})`;
  }
  if (filter.project === 'none') where = sql`${where} AND l.project_id IS NULL`;
  else if (filter.project !== undefined) where = sql`${where} AND l.project_id = ${filter.project}`;
  if (filter.availability !== undefined) {
    where = sql`${where} AND ${availabilityConditionPg(sql, filter.availability, filter.now)}`;
  }
  if (filter.domainId !== undefined) where = sql`${where} AND l.domain_id = ${filter.domainId}`;
  if (filter.visible) where = sql`${where} AND ${visiblePg(sql, filter.visible, 'l.')}`;
  return where;
}

const LINK_ROW =
  'l.*, c.clicks, c.uniques, c.bots, c.last_clicked_at, c.fallback_visits, c.imported_source, c.imported_at, c.imported_history, c.imported_clicks';

/**
 * The columns `value_id` (the link's dictionary value id, or null) and `plain_targets` (JSON text
 * of [id, destination, params] of each of its plain click targets, or null) of the link whose id
 * is `linkId`: the rollups' and clicks' own queries, given by the composition root.
 */
export type PgClickNamesColumns = (linkId: PgFragment) => PgFragment;

export function createPostgresLinkStore(sql: Pg, clickNames?: PgClickNamesColumns): LinkStore {
  const linkRows = async (where: PgFragment, tail = sql``) =>
    (
      await sql<PgLinkRow[]>`SELECT ${sql.unsafe(LINK_ROW)} FROM links l JOIN link_counters c ON c.link_id = l.id
      WHERE ${where} ${tail}`
    ).map(toLinkRow);
  // With the link's click names (RedirectRow.clickNames), when the composition root gives them.
  const names = clickNames ? sql`, ${clickNames(sql`l.id`)}` : sql``;
  const redirectRows = async (where: PgFragment, tail = sql``) =>
    (
      await sql<(PgLinkRow & Partial<PgClickNames>)[]>`SELECT ${sql.unsafe(LINK_ROW)} ${names}
      FROM links l JOIN link_counters c ON c.link_id = l.id
      WHERE ${where} ${tail}`
    ).map(toRedirectRow);
  return {
    async find(id) {
      if (!storable(id)) return null;
      return (await linkRows(sql`l.id = ${id}`))[0] ?? null;
    },
    async findMany(given) {
      const ids = storableKeys(given);
      if (ids.length === 0) return [];
      return linkRows(sql`l.id = ANY(${sql.array(ids, 'text')}::text[])`);
    },
    async slugTaken(domainId, slug) {
      if (!storable(slug)) return false;
      return (await sql`SELECT 1 FROM links WHERE domain_id = ${domainId} AND slug = ${slug}`).length > 0;
    },
    async takenSlugs(addresses) {
      const asked = addresses.filter((a) => storable(a.slug));
      if (asked.length === 0) return new Set();
      const rows = await sql<{ domain_id: number; slug: string }[]>`SELECT l.domain_id, l.slug FROM links l
        JOIN unnest(${sql.array(
          asked.map((a) => a.domainId),
          'int4',
        )}::int4[], ${sql.array(
          asked.map((a) => a.slug),
          'text',
        )}::text[]) AS a(domain_id, slug) ON l.domain_id = a.domain_id AND l.slug = a.slug`;
      return new Set(rows.map((r) => `${num(r.domain_id)}/${r.slug}`));
    },
    async idsByDestination(destinations, visible) {
      if (destinations.length === 0) return new Map();
      return idsByDestination(sql, storableKeys(destinations), visible);
    },
    async page(filter, sort, limit, after) {
      const where = filterSql(sql, filter);
      const read = (condition: PgFragment, order: PgFragment, n: number) =>
        sql<PgLinkRow[]>`SELECT ${sql.unsafe(LINK_ROW)} FROM links l JOIN link_counters c ON c.link_id = l.id
          WHERE ${condition} ${order} LIMIT ${n}`;
      if (sort === 'clicks') {
        const found = await clickOrderRows<PgLinkRow>(sql, sql.unsafe(LINK_ROW), where, limit + 1, after);
        return pageOf(found.map(toLinkRow), sort, limit);
      }
      const column = sort === 'updated' ? sql`l.updated_at` : sql`l.created_at`;
      const ascending = sort === 'oldest';
      const past = after
        ? sql`${where} AND ${pastKey(sql, column, sql`l.id`, sql`${after.value}::int8`, after, ascending)}`
        : where;
      const order = ascending ? sql`ORDER BY ${column} ASC, l.id ASC` : sql`ORDER BY ${column} DESC, l.id DESC`;
      return pageOf((await read(past, order, limit + 1)).map(toLinkRow), sort, limit);
    },
    async count(filter) {
      const [row] = await sql<{ n: Int8 }[]>`
        SELECT count(*) AS n FROM links l JOIN link_counters c ON c.link_id = l.id WHERE ${filterSql(sql, filter)}`;
      return num(row!.n);
    },
    async tagsOf(given) {
      const ids = storableKeys(given);
      const tagsByLink = new Map<string, string[]>();
      if (ids.length === 0) return tagsByLink;
      const rows = await sql<{ link_id: string; tag: string }[]>`
        SELECT link_id, tag FROM link_tags WHERE link_id = ANY(${sql.array(ids, 'text')}::text[]) ORDER BY tag`;
      for (const { link_id, tag } of rows) {
        const list = tagsByLink.get(link_id);
        if (list) list.push(tag);
        else tagsByLink.set(link_id, [tag]);
      }
      return tagsByLink;
    },
    async tagCounts(visible) {
      const rows = visible
        ? await sql<{ tag: string; n: Int8 }[]>`
          SELECT t.tag, count(*) AS n FROM link_tags t JOIN links l ON l.id = t.link_id
          WHERE ${visiblePg(sql, visible, 'l.')} GROUP BY t.tag ORDER BY count(*) DESC, t.tag`
        : await sql<{ tag: string; n: Int8 }[]>`
          SELECT tag, count(*) AS n FROM link_tags GROUP BY tag ORDER BY count(*) DESC, tag`;
      return rows.map((r) => ({ tag: r.tag, count: num(r.n) }));
    },
    async countByProject(visible) {
      const rows = visible
        ? await sql<{ project_id: string | null; n: Int8 }[]>`
          SELECT project_id, count(*) AS n FROM links WHERE ${visiblePg(sql, visible)} GROUP BY project_id`
        : await sql<{ project_id: string | null; n: Int8 }[]>`
          SELECT project_id, count(*) AS n FROM links GROUP BY project_id`;
      return new Map(rows.map((r) => [r.project_id, num(r.n)]));
    },
    async countInProject(projectId, visible) {
      if (!storable(projectId)) return 0;
      const [row] = visible
        ? await sql<{ n: Int8 }[]>`
          SELECT count(*) AS n FROM links WHERE project_id = ${projectId} AND ${visiblePg(sql, visible)}`
        : await sql<{ n: Int8 }[]>`SELECT count(*) AS n FROM links WHERE project_id = ${projectId}`;
      return num(row!.n);
    },
    async idsWithin(visible, domainId) {
      const rows =
        visible === null
          ? await sql<{ id: string }[]>`SELECT id FROM links WHERE domain_id = ${domainId}`
          : domainId === null
            ? await sql<{ id: string }[]>`SELECT id FROM links WHERE ${visiblePg(sql, visible)}`
            : await sql<{ id: string }[]>`
              SELECT id FROM links WHERE domain_id = ${domainId} AND ${visiblePg(sql, visible)}`;
      return rows.map((r) => r.id);
    },
    async names(given) {
      const ids = storableKeys(given);
      if (ids.length === 0) return new Map();
      const rows = await sql<{ id: string; slug: string; title: string | null }[]>`
        SELECT id, slug, title FROM links WHERE id = ANY(${sql.array(ids, 'text')}::text[])`;
      return new Map(rows.map(({ id, ...names }) => [id, names]));
    },
    async redirectRows(given) {
      const ids = storableKeys(given);
      if (ids.length === 0) return [];
      return redirectRows(sql`l.id = ANY(${sql.array(ids, 'text')}::text[])`);
    },
    async redirectRowBySlug(domainId, slug) {
      if (!storable(slug)) return null;
      return (await redirectRows(sql`l.domain_id = ${domainId} AND l.slug = ${slug}`))[0] ?? null;
    },
    async redirectPage(afterId, limit) {
      return redirectRows(sql`l.id > ${afterId}`, sql`ORDER BY l.id LIMIT ${limit}`);
    },
    async rowPage(afterId, limit) {
      return linkRows(sql`l.id > ${afterId}`, sql`ORDER BY l.id LIMIT ${limit}`);
    },
  };
}

/** The oldest link of each of these destinations, of the links `visible` keeps (all without it). */
async function idsByDestination(
  sql: Pg,
  destinations: string[],
  visible: Visible | null | undefined,
): Promise<Map<string, string>> {
  const limits = visible ? sql`AND ${visiblePg(sql, visible)}` : sql``;
  const rows = await sql<{ id: string; destination: string }[]>`
    SELECT id, destination FROM links WHERE destination = ANY(${sql.array(destinations, 'text')}::text[]) ${limits}
    ORDER BY created_at, id`;
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.destination)) out.set(r.destination, r.id);
  return out;
}

/** Each link with its counters row (every link has exactly one) and its tags: three statements in all. */
async function insertLinks(tx: Pg, items: NewLink[]): Promise<void> {
  if (items.length === 0) return;
  const rows = items.map((i) => i.row);
  const col = <T>(pick: (r: LinkRow) => T) => rows.map(pick);
  await tx`INSERT INTO links (id, slug, domain_id, destination, title, status, params, project_id, expires_at, click_limit,
      fallback_url, redirect_status, forward_query, password_hash, rules, preview, created_at, updated_at)
    SELECT * FROM unnest(${sql_text(
      tx,
      col((r) => r.id),
    )}, ${sql_text(
      tx,
      col((r) => r.slug),
    )}, ${tx`${tx.array(
      col((r) => r.domainId),
      'int4',
    )}::int4[]`},
      ${sql_text(
        tx,
        col((r) => r.destination),
      )}, ${sql_text(
        tx,
        col((r) => r.title),
      )},
      ${sql_text(
        tx,
        col((r) => r.status),
      )}, ${sql_text(
        tx,
        col((r) => JSON.stringify(r.params)),
      )},
      ${sql_text(
        tx,
        col((r) => r.projectId),
      )}, ${sql_int8(
        tx,
        col((r) => r.expiresAt),
      )},
      ${sql_int8(
        tx,
        col((r) => r.clickLimit),
      )}, ${sql_text(
        tx,
        col((r) => r.fallbackUrl),
      )},
      ${tx`${tx.array(
        col((r) => r.redirectStatus),
        'int4',
      )}::int4[]`}, ${tx`${tx.array(
        col((r) => r.forwardQuery),
        'bool',
      )}::bool[]`}, ${sql_text(
        tx,
        col((r) => r.passwordHash),
      )}, ${sql_text(
        tx,
        col((r) => (r.rules === null ? null : JSON.stringify(r.rules))),
      )}, ${sql_text(
        tx,
        col((r) => (r.preview === null ? null : JSON.stringify(r.preview))),
      )}, ${sql_int8(
        tx,
        col((r) => r.createdAt),
      )},
      ${sql_int8(
        tx,
        col((r) => r.updatedAt),
      )})`;
  await tx`INSERT INTO link_counters (link_id, clicks, uniques, bots, last_clicked_at, fallback_visits)
    SELECT * FROM unnest(${sql_text(
      tx,
      col((r) => r.id),
    )}, ${sql_int8(
      tx,
      col((r) => r.clickCount),
    )},
      ${sql_int8(
        tx,
        col((r) => r.uniqueCount),
      )}, ${sql_int8(
        tx,
        col((r) => r.botCount),
      )},
      ${sql_int8(
        tx,
        col((r) => r.lastClickedAt),
      )}, ${sql_int8(
        tx,
        col((r) => r.fallbackCount),
      )})`;
  const tagLinks: string[] = [];
  const tags: string[] = [];
  for (const item of items) {
    for (const tag of item.tags) {
      tagLinks.push(item.row.id);
      tags.push(tag);
    }
  }
  if (tags.length) {
    await tx`INSERT INTO link_tags (link_id, tag) SELECT * FROM unnest(${sql_text(tx, tagLinks)}, ${sql_text(tx, tags)})`;
  }
}

/** A text[] parameter (nulls kept). */
function sql_text(tx: Pg, values: (string | null)[]) {
  return tx`${tx.array(values, 'text')}::text[]`;
}

/** An int8[] parameter (nulls kept). */
function sql_int8(tx: Pg, values: (number | null)[]) {
  return tx`${tx.array(values, 'int8')}::int8[]`;
}

/** The SET list of a link update: only the fields given. */
function linkChanges(changes: Partial<LinkFields>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (changes.slug !== undefined) out.slug = changes.slug;
  if (changes.domainId !== undefined) out.domain_id = changes.domainId;
  if (changes.destination !== undefined) out.destination = changes.destination;
  if (changes.title !== undefined) out.title = changes.title;
  if (changes.status !== undefined) out.status = changes.status;
  if (changes.params !== undefined) out.params = JSON.stringify(changes.params);
  if (changes.projectId !== undefined) out.project_id = changes.projectId;
  if (changes.expiresAt !== undefined) out.expires_at = changes.expiresAt;
  if (changes.clickLimit !== undefined) out.click_limit = changes.clickLimit;
  if (changes.fallbackUrl !== undefined) out.fallback_url = changes.fallbackUrl;
  if (changes.redirectStatus !== undefined) out.redirect_status = changes.redirectStatus;
  if (changes.forwardQuery !== undefined) out.forward_query = changes.forwardQuery;
  if (changes.passwordHash !== undefined) out.password_hash = changes.passwordHash;
  if (changes.rules !== undefined) out.rules = changes.rules === null ? null : JSON.stringify(changes.rules);
  if (changes.preview !== undefined) out.preview = changes.preview === null ? null : JSON.stringify(changes.preview);
  if (changes.updatedAt !== undefined) out.updated_at = changes.updatedAt;
  return out;
}

/** Link creation is serialised across connections and nodes (db/postgres/locks.ts says why). */
async function lockLinkCreation(tx: Pg): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${LINK_CREATE_LOCK})`;
}

/**
 * The writes of redirect facts; each announces the links it touched to the other nodes in its own
 * transaction (links/postgres/changes.ts), as `instance`: this process, whose index follows its
 * writes itself.
 */
/**
 * What else goes with a deleted link, inside the delete's transaction: its rollups and its raw
 * clicks (the rollups' and the clicks modules' own statements, given by the composition root so
 * that links import neither).
 */
export type DeleteLinkDataPostgres = (tx: Pg, linkId: string) => Promise<void>;

/**
 * What the click writer will name for new links, inside their creation's transaction: each
 * link's dictionary value and plain click target (the rollups' and the clicks modules' own
 * statements, given by the composition root), so a link's first click names nothing.
 */
export type NameLinksPostgres = (tx: Pg, links: readonly LinkRow[]) => Promise<void>;

export function createPostgresLinkWrites(
  sql: Pg,
  instance: string,
  deleteLinkData: DeleteLinkDataPostgres,
  nameLinks: NameLinksPostgres,
): LinkWrites {
  /** The last steps of a link write: announce the links to the nodes, record the events. */
  /** The audit entries go beside the announcement, pipelined: no round trip of their own. */
  const announce = async (tx: Pg, ids: readonly string[], events: NewEvent[], at: number, audit?: Audited) => {
    await Promise.all([announceLinkChanges(tx, instance, ids), insertAuditPostgres(tx, audit)]);
    await recordEventsPostgres(tx, events, at);
  };
  const idsOf = (items: NewLink[]) => items.map((i) => i.row.id);
  return {
    async insert(items, at, audit) {
      await sql.begin(async (tx) => {
        await lockLinkCreation(tx);
        await insertLinks(tx, items);
        await nameLinks(
          tx,
          items.map((i) => i.row),
        );
        await announce(tx, idsOf(items), linkEvents('link.created', idsOf(items)), at, audit);
      });
    },
    async insertBulk(items, { skipExisting, freshSlug, visible, also }, at, audit) {
      return sql.begin(async (tx) => {
        // Pipelined with the first read (run in order on the connection): no round trip of its own.
        const locked = lockLinkCreation(tx);
        const existing = skipExisting
          ? await idsByDestination(
              tx,
              items.map((i) => i.row.destination),
              visible,
            )
          : new Map<string, string>();
        const writing = items.filter((i) => !existing.has(i.row.destination));
        // `domain id slug` of the addresses taken among those drawn (one query, by the (domain, slug)
        // index: a slug alone has none, and a scan of every link costs more with each link made); a
        // slug drawn again is asked alone.
        const address = (r: { domain_id: number; slug: string }) => `${num(r.domain_id)} ${r.slug}`;
        const [, takenRows] = await Promise.all([
          locked,
          tx<{ domain_id: number; slug: string }[]>`SELECT l.domain_id, l.slug FROM links l
              JOIN unnest(${tx.array(
                writing.map((i) => i.row.domainId),
                'int4',
              )}::int4[], ${tx.array(
                writing.map((i) => i.row.slug),
                'text',
              )}::text[]) AS a(domain_id, slug) ON l.domain_id = a.domain_id AND l.slug = a.slug`,
        ]);
        const taken = new Set(takenRows.map(address));
        const takenNow = async (item: NewLink) =>
          taken.has(address({ domain_id: item.row.domainId, slug: item.row.slug })) ||
          (await tx`SELECT 1 FROM links WHERE domain_id = ${item.row.domainId} AND slug = ${item.row.slug}`).length > 0;
        for (const item of writing) {
          while (await takenNow(item)) item.row.slug = freshSlug();
        }
        const entries = audit ? entriesFor(audit, idsOf(writing)) : null;
        // The writes pipelined (one round trip, not one each): they run in the order started, the
        // links' first, so every row naming a link comes after it.
        await pipelined([
          insertLinks(tx, writing),
          nameLinks(
            tx,
            writing.map((i) => i.row),
          ),
          announce(tx, idsOf(writing), linkEvents('link.created', idsOf(writing)), at, entries),
          also?.(tx as unknown as WriteTx, writing),
        ]);
        return { inserted: writing, existing };
      });
    },
    async update(updates, at, audit) {
      await sql.begin(async (tx) => {
        for (const { id, changes, tags } of updates) {
          const set = linkChanges(changes);
          if (Object.keys(set).length) await tx`UPDATE links SET ${tx(set)} WHERE id = ${id}`;
          if (tags) {
            await tx`DELETE FROM link_tags WHERE link_id = ${id}`;
            if (tags.length) {
              await tx`INSERT INTO link_tags (link_id, tag)
                SELECT ${id}, unnest(${tx.array(tags, 'text')}::text[])`;
            }
          }
        }
        const ids = updates.map((u) => u.id);
        await announce(tx, ids, linkEvents('link.updated', ids), at, audit);
      });
    },
    async delete(deleted, at, audit) {
      const ids = deleted.map((d) => d.id);
      await sql.begin(async (tx) => {
        // No click batch or fold is in flight while the links and their clicks go (locks.ts).
        await tx`SELECT pg_advisory_xact_lock(${CLICK_BARRIER_LOCK})`;
        for (const id of [...ids].sort()) {
          await deleteLinkData(tx, id);
        }
        await tx`DELETE FROM links WHERE id = ANY(${tx.array(ids, 'text')}::text[])`;
        await announce(tx, ids, linkDeletedEvents(deleted), at, audit);
      });
    },
    async insertVariant(row, at, audit) {
      await sql.begin(async (tx) => {
        await insertVariantPostgres(tx, row);
        await announce(tx, [row.linkId], linkEvents('link.updated', [row.linkId]), at, audit);
      });
    },
    async updateVariant(linkId, id, changes, at, audit) {
      await sql.begin(async (tx) => {
        await updateVariantPostgres(tx, linkId, id, changes);
        await announce(tx, [linkId], linkEvents('link.updated', [linkId]), at, audit);
      });
    },
    async deleteVariant(linkId, id, at, audit) {
      await sql.begin(async (tx) => {
        await deleteVariantPostgres(tx, linkId, id);
        await announce(tx, [linkId], linkEvents('link.updated', [linkId]), at, audit);
      });
    },
  };
}

/**
 * Moves every link of a project to unfiled (updatedAt `now`), inside the caller's transaction
 * (projects/postgres/store.ts deletes the project in the same one). Returns the links moved.
 */
export async function unfileProjectLinksPostgres(tx: Pg, projectId: string, now: number): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`
    UPDATE links SET project_id = NULL, updated_at = ${now} WHERE project_id = ${projectId} RETURNING id`;
  const ids = rows.map((r) => r.id);
  await recordEventsPostgres(tx, linkEvents('link.updated', ids), now);
  return ids;
}
