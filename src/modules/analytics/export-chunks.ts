/**
 * What the route's response body reads an export through, whatever runs it: the export Worker
 * on SQLite (export-host.ts), async pages on the event loop on PostgreSQL (postgres/export.ts).
 */
import type { ClickLinesSpec } from './export-click-lines';
import type { ExportSpec } from './export-cursor';

/**
 * The export's link was deleted before its last page was read: the export ends here, cut short
 * (the response is aborted, so a client cannot take it for a complete file).
 */
export class ExportCutShort extends Error {
  constructor() {
    super('export cut short: its link was deleted');
  }
}

/** One running export: chunks in order, then null; rejects with ExportCutShort when its link went meanwhile. */
export interface ExportChunks {
  next(): Promise<Uint8Array | null>;
  /** The client went away: stop reading. */
  cancel(): void;
}

/** Runs exports, each one chunk ahead of what its client has taken. */
export interface Exports {
  /** A link's CSV, or the click lines of a page of links (the workspace export's). */
  start(spec: ExportSpec | ClickLinesSpec): ExportChunks;
  /** How many exports are running (for the tests and diagnostics). */
  readonly running: number;
  /** Ends every running export (the server is stopping); they fail. */
  close(): void;
}
