/**
 * The export thread, on either engine: its own connection (SQLite: read-only with a small page
 * cache; PostgreSQL: a pool of EXPORT_POOL), and a cursor per running export: a link's CSV
 * (export-cursor.ts), or the click lines of a page of links of the workspace export
 * (export-click-lines.ts). A 1M-row export
 * is seconds of CPU and millions of short strings; here neither the CPU nor the garbage is on
 * the event loop that serves redirects (measured on PostgreSQL, where the export once ran on
 * that loop: GET /healthz took 3-13 ms at p50 during an export instead of 1).
 * Answers each `next` with one chunk, its buffer transferred (not copied).
 */
import type { Database } from 'bun:sqlite';
import type { DatabaseAddress } from '../../db/address';
import { openConnection } from '../../db/client';
import { openPostgres, type Pg } from '../../db/postgres/client';
import { serve, Transfer } from '../../lib/worker-rpc';
import { ExportCutShort } from './export-chunks';
import { ClickLinesCursor, type ClickLinesSpec, PgClickLinesCursor } from './export-click-lines';
import { ExportCursor, type ExportSpec, LinkDeletedDuringExport } from './export-cursor';
import { PgExportCursor } from './postgres/export';

/** Connections of the export thread on PostgreSQL: a page is read while the one before is encoded. */
const EXPORT_POOL = 2;

let sqlite: Database | null = null;
let pg: Pg | null = null;
let openError: string | null = null;
const cursors = new Map<number, ExportCursor | PgExportCursor | ClickLinesCursor | PgClickLinesCursor>();
const encoder = new TextEncoder();
/**
 * A full collection after this many pages. JavaScriptCore collects this thread's garbage (a
 * page is ~15,000 short strings) lazily; measured on a 1.1M-row export, the server's RSS grew
 * 61 MB without this and 33-37 MB with it (most of the rest is the main thread's chunks), at
 * the same rate (~285k rows/s). The heap here is small, so a collection takes a few ms, and it
 * never pauses the thread that serves redirects.
 */
const PAGES_PER_COLLECTION = 16;
let pages = 0;

/** One chunk of CSV: the first `length` bytes of `buffer`. */
interface ExportChunk {
  buffer: ArrayBuffer;
  length: number;
}

const handlers = {
  /** Posted once; a failure is told to each export's first `next`. */
  open(address: DatabaseAddress): void {
    try {
      if (address.engine === 'postgres') pg = openPostgres(address.url, EXPORT_POOL);
      else sqlite = openConnection(address.path, 'export');
    } catch (err) {
      openError = err instanceof Error ? err.message : String(err);
    }
  },
  start({ id, spec }: { id: number; spec: ExportSpec | ClickLinesSpec }): void {
    if ('kind' in spec) {
      if (sqlite) cursors.set(id, new ClickLinesCursor(sqlite, spec));
      else if (pg) cursors.set(id, new PgClickLinesCursor(pg, spec));
    } else if (sqlite) cursors.set(id, new ExportCursor(sqlite, spec));
    else if (pg) cursors.set(id, new PgExportCursor(pg, spec));
  },
  /**
   * The export's next chunk, null at its end, 'link deleted' when its link went before its end
   * (an outcome, not a failure of the export); throws (and forgets the export) when it fails.
   */
  async next(id: number): Promise<Transfer<ExportChunk> | null | 'link deleted'> {
    const cursor = cursors.get(id);
    if (!cursor) throw new Error(openError ?? 'no such export');
    let text: string | null;
    try {
      text = await cursor.next();
    } catch (err) {
      cursors.delete(id);
      if (err instanceof LinkDeletedDuringExport || err instanceof ExportCutShort) return 'link deleted';
      throw err;
    }
    // Once the chunk is sent: a collection takes a few ms the reader need not wait for.
    if (++pages % PAGES_PER_COLLECTION === 0) queueMicrotask(() => Bun.gc(true));
    if (text === null) {
      cursors.delete(id);
      return null;
    }
    const bytes = encoder.encode(text);
    const buffer = bytes.buffer as ArrayBuffer;
    return new Transfer({ buffer, length: bytes.byteLength }, [buffer]);
  },
  end(id: number): void {
    cursors.delete(id);
  },
};
export type ExportHandlers = typeof handlers;

serve(handlers);
