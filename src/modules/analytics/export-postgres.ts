/**
 * Exports on PostgreSQL: no Worker; each export reads its pages asynchronously on the event
 * loop (the database server does the reading), one keyset page of EXPORT_PAGE records per
 * chunk, the next page already asked for while the current one is sent. Memory stays at about
 * two pages per export, whatever its size. Each page is one statement that also asks whether the
 * link still exists, so a link deleted meanwhile cuts the export short (ExportCutShort), as on
 * SQLite, instead of ending it as if complete.
 */
import type { Pg } from '../../db/postgres/client';
import type { Logger } from '../../deps';
import { type ClickKey, keyAbove, PgExportPages } from '../clicks/public';
import { type ExportChunks, ExportCutShort, type Exports } from './export-chunks';
import { CsvRecords, EXPORT_PAGE, type ExportSpec } from './export-cursor';
import { readerValues } from './store-postgres';

const encoder = new TextEncoder();

/** One export's chunks: the header, then a page of records each, then null. */
class PgExportCursor {
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

  async next(): Promise<Uint8Array | null> {
    if (this.state === 'header') {
      this.state = 'rows';
      return encoder.encode(this.csv.header());
    }
    if (this.state === 'done') return null;
    const rows = await this.pages.next(this.before, EXPORT_PAGE);
    if (rows === 'link deleted') throw new ExportCutShort();
    if (rows.length < EXPORT_PAGE) this.state = 'done';
    const last = rows[rows.length - 1];
    if (last === undefined) return null;
    this.before = { timestamp: last[1], id: last[0] };
    return encoder.encode(this.csv.page(rows));
  }
}

export class PgExports implements Exports {
  private nextId = 1;
  /** Exports started and not yet finished, failed or cancelled, with what ends each. */
  private readonly open = new Map<number, (error: Error) => void>();

  constructor(
    private readonly sql: Pg,
    private readonly log: Logger,
  ) {}

  get running(): number {
    return this.open.size;
  }

  start(spec: ExportSpec): ExportChunks {
    const id = this.nextId++;
    const cursor = new PgExportCursor(this.sql, spec);
    let stopped: Error | null = null;
    let ended = false;
    const end = () => {
      ended = true;
      this.open.delete(id);
    };
    this.open.set(id, (error) => {
      stopped = error;
      end();
    });
    const request = (): Promise<Uint8Array | null> => {
      const answer = cursor.next().catch((err: Error) => {
        if (err instanceof ExportCutShort) this.log.info(`export ${id} cut short: its link was deleted`);
        else if (!ended) this.log.error(`export ${id} failed: ${err.message}`);
        throw err;
      });
      // A chunk asked for ahead may never be awaited (the client left, the server stopped).
      answer.catch(() => {});
      return answer;
    };
    let ahead: Promise<Uint8Array | null> | null = request();
    return {
      next: async () => {
        if (stopped) throw stopped;
        let chunk: Uint8Array | null;
        try {
          chunk = ahead === null ? null : await ahead;
        } catch (err) {
          end();
          throw err;
        }
        if (stopped) throw stopped;
        ahead = null;
        // Ask for the following page now: the database reads it while this one is sent.
        if (chunk !== null && !ended) ahead = request();
        else end();
        return chunk;
      },
      cancel: () => {
        if (ended) return;
        ahead = null;
        end();
      },
    };
  }

  /** Fails the exports still running (the server is stopping). */
  close(): void {
    for (const stop of [...this.open.values()]) stop(new Error('the server is stopping'));
  }
}
