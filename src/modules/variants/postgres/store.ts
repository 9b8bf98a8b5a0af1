/** The variants store on PostgreSQL. */
import { num, type Pg, storable, storableKeys } from '../../../db/postgres/client';
import { groupByLink, type VariantRow, type VariantStore } from '../store';

interface PgVariantRow {
  id: string;
  link_id: string;
  code: string;
  params: string;
  click_count: string | number;
  created_at: string | number;
  updated_at: string | number;
}

function toRow(r: PgVariantRow): VariantRow {
  return {
    id: r.id,
    linkId: r.link_id,
    code: r.code,
    params: JSON.parse(r.params),
    clickCount: num(r.click_count),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function createPostgresVariantStore(sql: Pg): VariantStore {
  return {
    async ofLinks(given) {
      const linkIds = storableKeys(given);
      if (linkIds.length === 0) return new Map();
      const rows = await sql<PgVariantRow[]>`SELECT * FROM variants
        WHERE link_id = ANY(${sql.array(linkIds, 'text')}::text[]) ORDER BY created_at, id`;
      return groupByLink(rows.map(toRow));
    },
    async find(linkId, variantId) {
      if (!storable(linkId) || !storable(variantId)) return null;
      const [row] = await sql<PgVariantRow[]>`SELECT * FROM variants WHERE link_id = ${linkId} AND id = ${variantId}`;
      return row ? toRow(row) : null;
    },
    async findByCode(linkId, code) {
      if (!storable(linkId) || !storable(code)) return null;
      const [row] = await sql<PgVariantRow[]>`SELECT * FROM variants WHERE link_id = ${linkId} AND code = ${code}`;
      return row ? toRow(row) : null;
    },
    async codes(linkId) {
      if (linkId !== null && !storable(linkId)) return new Map();
      const rows =
        linkId === null
          ? await sql<{ id: string; code: string }[]>`SELECT id, code FROM variants`
          : await sql<{ id: string; code: string }[]>`SELECT id, code FROM variants WHERE link_id = ${linkId}`;
      return new Map(rows.map((r) => [r.id, r.code]));
    },
    async byIds(given) {
      const ids = storableKeys(given);
      if (ids.length === 0) return new Map();
      const rows = await sql<{ id: string; code: string; link_id: string }[]>`
        SELECT id, code, link_id FROM variants WHERE id = ANY(${sql.array(ids, 'text')}::text[])`;
      return new Map(rows.map((r) => [r.id, { code: r.code, linkId: r.link_id }]));
    },
  };
}

// The writes: redirect facts, so only the links store's LinkWrites calls these (links/postgres/store.ts).

export async function insertVariantPostgres(sql: Pg, row: VariantRow): Promise<void> {
  await sql`INSERT INTO variants (id, link_id, code, params, click_count, created_at, updated_at)
    VALUES (${row.id}, ${row.linkId}, ${row.code}, ${JSON.stringify(row.params)}, ${row.clickCount},
      ${row.createdAt}, ${row.updatedAt})`;
}

export async function updateVariantPostgres(
  sql: Pg,
  linkId: string,
  id: string,
  changes: Partial<VariantRow>,
): Promise<void> {
  const set: Record<string, unknown> = {};
  if (changes.code !== undefined) set.code = changes.code;
  if (changes.params !== undefined) set.params = JSON.stringify(changes.params);
  if (changes.updatedAt !== undefined) set.updated_at = changes.updatedAt;
  if (Object.keys(set).length) await sql`UPDATE variants SET ${sql(set)} WHERE link_id = ${linkId} AND id = ${id}`;
}

export async function deleteVariantPostgres(sql: Pg, linkId: string, id: string): Promise<void> {
  await sql`DELETE FROM variants WHERE link_id = ${linkId} AND id = ${id}`;
}
