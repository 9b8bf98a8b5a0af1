/**
 * The CSV export of one link's clicks as a sequence of chunks: the header row, then pages of
 * EXPORT_PAGE records, newest first. Each page is its own short read (keyset paging), so a
 * million-row export never holds a read transaction that would block WAL checkpoints. Runs
 * in the export Worker (export-host.ts) on SQLite; PostgreSQL reads its pages asynchronously
 * (postgres/export.ts) and writes them with CsvRecords. Nothing here knows of HTTP or threads.
 */
import type { Database } from 'bun:sqlite';
import {
  type ClickKey,
  EXPORT_BOT_AT,
  EXPORT_DIMS_AT,
  EXPORT_RULE_AT,
  ExportPages,
  type ExportRow,
  keyAbove,
} from '../clicks/public';
import { linkExists } from '../links/public';
import { CLICK_FIELDS } from '../webhooks/public';
import { csvCell, csvLine } from './csv';

/**
 * Records per chunk. Small enough that a page's text and garbage stay well under a megabyte,
 * large enough that the per-page query and message cost nothing measurable.
 */
export const EXPORT_PAGE = 1000;

/** What to export: plain data, so it can be posted to the Worker. */
export interface ExportSpec {
  linkId: string;
  slug: string;
  /** The host of the link's domain, as it was when the export was asked for. */
  domain: string;
  /** Ids of the link's variants when the export was asked for (for variantKnown). */
  variantIds: string[];
  /** The window, epoch ms, both ends inclusive. */
  from: number;
  to: number;
  bots: boolean;
  /** The newest click id when the export was asked for: clicks written later never join. */
  maxId: number;
}

/**
 * The link was deleted while its export ran (with its clicks): the pages not read yet are gone,
 * so the export cannot be completed and must not end as if it were.
 */
export class LinkDeletedDuringExport extends Error {
  constructor(linkId: string) {
    super(`the link ${linkId} was deleted during its export`);
  }
}

/** The export's CSV text, whichever engine read its rows. */
export class CsvRecords {
  private readonly variants: ReadonlySet<string>;
  /** The link id and slug cells, the same on every record. */
  private readonly linkCells: string;
  /** The domain cell, last on every record. */
  private readonly domainCell: string;

  constructor(spec: ExportSpec) {
    this.variants = new Set(spec.variantIds);
    this.linkCells = `${csvCell(spec.linkId)},${csvCell(spec.slug)}`;
    this.domainCell = csvCell(spec.domain);
  }

  header(): string {
    return csvLine(CLICK_FIELDS);
  }

  /** The records of a page of rows. */
  page(rows: ExportRow[]): string {
    let text = '';
    for (const row of rows) text += this.record(row);
    return text;
  }

  /** One record straight from the stored row: params are already JSON text, not parsed and re-serialised. */
  private record(r: ExportRow): string {
    const known = r[3] !== null && this.variants.has(r[3]);
    let line = `${r[0]},${this.linkCells},${r[1]},${csvCell(r[2])},${known},${csvCell(r[4])},${csvCell(r[5])}`;
    for (let d = EXPORT_DIMS_AT; d < EXPORT_BOT_AT; d++) line += `,${csvCell(r[d] as string | null)}`;
    const rule = r[EXPORT_RULE_AT] as number | null;
    return `${line},${r[EXPORT_BOT_AT] === 1},${rule ?? ''},${this.domainCell}\r\n`;
  }
}

export class ExportCursor {
  private before: ClickKey;
  private state: 'header' | 'rows' | 'done' = 'header';
  private readonly csv: CsvRecords;
  private readonly pages: ExportPages;

  constructor(
    private readonly sqlite: Database,
    private readonly spec: ExportSpec,
  ) {
    this.pages = new ExportPages(sqlite, spec.linkId, spec.from, spec.maxId, spec.bots);
    this.before = keyAbove(spec.to);
    this.csv = new CsvRecords(spec);
  }

  /**
   * The next chunk of CSV text (the header, then a page of records), or null when the export is
   * complete. Throws LinkDeletedDuringExport when the link is gone before its last page was read.
   */
  next(): string | null {
    if (this.state === 'header') {
      this.state = 'rows';
      return this.csv.header();
    }
    if (this.state === 'done') return null;
    // One read transaction: the page is read from the snapshot in which the link was looked up,
    // so a page read after the delete is never taken for the end of the export.
    const rows = this.sqlite.transaction(() => {
      if (!linkExists(this.sqlite, this.spec.linkId)) throw new LinkDeletedDuringExport(this.spec.linkId);
      return this.pages.next(this.before, EXPORT_PAGE);
    })();
    if (rows.length < EXPORT_PAGE) this.state = 'done';
    const last = rows[rows.length - 1];
    if (last === undefined) return null;
    this.before = { timestamp: last[1], id: last[0] };
    return this.csv.page(rows);
  }
}
