/**
 * An export's cursor on PostgreSQL, run in the export Worker (export-worker.ts) as SQLite's
 * ExportCursor is: one keyset page of EXPORT_PAGE records per chunk, read asynchronously (the
 * host asks for the next chunk while the current one is sent). Memory stays at about two pages
 * per export, whatever its size. Each page also asks whether the link still exists, so a link
 * deleted meanwhile cuts the export short (ExportCutShort), as on SQLite, instead of ending it
 * as if complete.
 */
import type { Pg } from '../../../db/postgres/client';
import { type ClickKey, keyAbove, PgExportPages } from '../../clicks/public';
import { ExportCutShort } from '../export-chunks';
import { CsvRecords, EXPORT_PAGE, type ExportSpec } from '../export-cursor';
import { readerValues } from './store';

/** One export's chunks of CSV text: the header, then a page of records each, then null. */
export class PgExportCursor {
  private before: ClickKey;
  private state: 'header' | 'rows' | 'done' = 'header';
  private readonly csv: CsvRecords;
  private readonly pages: PgExportPages;

  constructor(sql: Pg, spec: ExportSpec) {
    this.pages = new PgExportPages(sql, readerValues(sql), spec.linkId, {
      from: spec.from,
      maxId: spec.maxId,
      bots: spec.bots,
    });
    this.before = keyAbove(spec.to);
    this.csv = new CsvRecords(spec);
  }

  async next(): Promise<string | null> {
    if (this.state === 'header') {
      this.state = 'rows';
      return this.csv.header();
    }
    if (this.state === 'done') return null;
    const rows = await this.pages.next(this.before, EXPORT_PAGE);
    if (rows === 'link deleted') throw new ExportCutShort();
    if (rows.length < EXPORT_PAGE) this.state = 'done';
    const last = rows[rows.length - 1];
    if (last === undefined) return null;
    this.before = { timestamp: last[1], id: last[0] };
    return this.csv.page(rows);
  }
}
