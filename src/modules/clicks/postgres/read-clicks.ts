/**
 * The raw clicks read back on PostgreSQL, for the clicks list and the CSV export: the same
 * keys, order and fields as the SQLite engine's reads (sqlite/read-clicks.ts), from the tail
 * and the sealed blocks (raw-read.ts). Dictionary ids are named by a reader's copy of the
 * dictionary (rollups PgValues), target ids by a reader's cache of click_targets.
 */
import { num, type Pg } from '../../../db/postgres/client';
import { linkExistsCondition } from '../../links/public';
import { type ClickDimTuple, linkValueIdPg, type PgValues } from '../../rollups/public';
import type { ClickColumns } from '../block-codec';
import type { ClickFilter, ClickKey, ClickRef } from '../block-page';
import { type ExportRow, exportRow, type ListedClick, listedClick } from '../read-clicks';
import type { ClickTarget } from '../stored-click';
import { fewClicksOfLinks } from './few-clicks';
import { PgLinkClickReader, PgTargetNames } from './raw-read';

/** One target cache per pool, shared by its readers. */
const targetCaches = new WeakMap<Pg, PgTargetNames>();

function targetNames(sql: Pg): PgTargetNames {
  let names = targetCaches.get(sql);
  if (names === undefined) {
    names = new PgTargetNames(sql);
    targetCaches.set(sql, names);
  }
  return names;
}

/** A dictionary id's text: null for '' (unknown). */
function valueText(values: PgValues, id: number): string | null {
  const v = values.nameOf(id)?.value;
  if (v === undefined) throw new Error(`click value ${id} is missing`);
  return v === '' ? null : v;
}

function dimTexts(values: PgValues, c: ClickColumns, i: number): ClickDimTuple {
  return c.dims.map((column) => valueText(values, column[i]!)) as unknown as ClickDimTuple;
}

/** A page's clicks with the names they need: every dictionary id known, every target read (null: one is gone). */
async function named(
  sql: Pg,
  values: PgValues,
  refs: ClickRef[],
): Promise<{ targets: Map<number, ClickTarget> } | null> {
  const ids = new Set<number>();
  for (const { c, i } of refs)
    for (const column of c.dims) if (values.nameOf(column[i]!) === undefined) ids.add(column[i]!);
  if (ids.size > 0) await values.know([...ids]);
  const targets = await targetNames(sql).of(refs.map(({ c, i }) => c.target[i]!));
  return targets === null ? null : { targets };
}

/** The clicks list's page: up to `limit` clicks of a link below `before`, not before `from`. */
export async function readClickPagePg(
  sql: Pg,
  values: PgValues,
  linkId: string,
  from: number,
  before: ClickKey,
  bots: boolean,
  limit: number,
): Promise<ListedClick[]> {
  const link = await linkValueIdPg(sql, linkId);
  if (link === null) return [];
  const filter = { from, maxId: Number.POSITIVE_INFINITY, bots };
  const reader = new PgLinkClickReader(sql, linkId, link, filter, { checkAlive: false });
  const refs = await reader.page(before, limit);
  // Gone since the list asked for it: its link was deleted meanwhile.
  const names = refs === null ? null : await named(sql, values, refs);
  if (refs === null || names === null) return [];
  return refs.map(({ c, i }) => listedClick(c, i, names.targets.get(c.target[i]!)!, dimTexts(values, c, i)));
}

/** The newest click id given out (ids come from one sequence and are never reused). */
export async function lastClickIdPg(sql: Pg): Promise<number> {
  const [r] = await sql`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS id FROM click_ids`;
  return num(r.id);
}

/**
 * The export's pages (readClickPagePg's keys and order, clicks up to `maxId` only), each
 * asking in its own snapshot whether the link still exists: 'link deleted' when it does not.
 */
export class PgExportPages {
  private reader: PgLinkClickReader | null | undefined;

  constructor(
    private readonly sql: Pg,
    private readonly values: PgValues,
    private readonly linkId: string,
    private readonly filter: ClickFilter,
  ) {}

  async next(before: ClickKey, limit: number): Promise<ExportRow[] | 'link deleted'> {
    if (this.reader === undefined) {
      const link = await linkValueIdPg(this.sql, this.linkId);
      this.reader =
        link === null ? null : new PgLinkClickReader(this.sql, this.linkId, link, this.filter, { checkAlive: true });
    }
    const refs = this.reader === null ? await this.linkOnly() : await this.reader.page(before, limit);
    if (refs === null) return 'link deleted';
    const names = await named(this.sql, this.values, refs);
    if (names === null) return 'link deleted';
    return refs.map(({ c, i }) => exportRow(c, i, names.targets.get(c.target[i]!)!, dimTexts(this.values, c, i)));
  }

  /** A link never clicked: no rows, but it may still have been deleted. */
  private async linkOnly(): Promise<ClickRef[] | null> {
    const [r] = await this.sql`SELECT ${linkExistsCondition(this.sql, this.linkId)} AS alive`;
    return r.alive ? [] : null;
  }
}

/**
 * The export rows of links with few clicks, by scope (few-clicks.ts): every click of each, newest
 * first, named in one go; null for a link to read page by page (PgExportPages), and for every
 * link when one of the page's targets went meanwhile (a link deleted during the read).
 */
export async function fewClicksRowsPg(
  sql: Pg,
  values: PgValues,
  scopes: readonly number[],
  filter: ClickFilter,
  limit: number,
): Promise<Map<number, ExportRow[] | null>> {
  const refs = await fewClicksOfLinks(sql, scopes, filter, limit);
  const all: ClickRef[] = [];
  for (const page of refs.values()) if (page !== null) all.push(...page);
  const names = await named(sql, values, all);
  const out = new Map<number, ExportRow[] | null>();
  for (const [scope, page] of refs)
    out.set(
      scope,
      page === null || names === null
        ? null
        : page.map(({ c, i }) => exportRow(c, i, names.targets.get(c.target[i]!)!, dimTexts(values, c, i))),
    );
  return out;
}
