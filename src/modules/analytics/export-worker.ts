/**
 * The export thread: its own read-only connection with a small page cache, and an
 * ExportCursor per running export. A 1M-row export is seconds of CPU and millions of short
 * strings; here neither the CPU nor the garbage is on the event loop that serves redirects.
 * Answers each `next` with one chunk, its buffer transferred (not copied).
 */
import type { Database } from 'bun:sqlite';
import { openConnection } from '../../db/client';
import { ExportCursor } from './export-cursor';
import type { ExportReply, ExportRequest } from './export-host';

declare const self: Worker;

let sqlite: Database | null = null;
let openError: string | null = null;
const cursors = new Map<number, ExportCursor>();
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

function reply(message: ExportReply, transfer: ArrayBuffer[] = []): void {
  self.postMessage(message, transfer);
}

self.onmessage = (event: MessageEvent<ExportRequest>) => {
  const message = event.data;
  switch (message.type) {
    case 'open':
      try {
        sqlite = openConnection(message.dbPath, 'export');
      } catch (err) {
        openError = err instanceof Error ? err.message : String(err);
      }
      return;
    case 'start':
      if (sqlite) cursors.set(message.id, new ExportCursor(sqlite, message.spec));
      return;
    case 'next': {
      const cursor = cursors.get(message.id);
      if (!cursor) {
        reply({ type: 'failed', id: message.id, message: openError ?? 'no such export' });
        return;
      }
      try {
        const text = cursor.next();
        if (text === null) {
          cursors.delete(message.id);
          reply({ type: 'chunk', id: message.id, buffer: null, length: 0 });
        } else {
          const bytes = encoder.encode(text);
          reply({ type: 'chunk', id: message.id, buffer: bytes.buffer as ArrayBuffer, length: bytes.byteLength }, [
            bytes.buffer as ArrayBuffer,
          ]);
        }
        if (++pages % PAGES_PER_COLLECTION === 0) Bun.gc(true);
      } catch (err) {
        cursors.delete(message.id);
        reply({ type: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) });
      }
      return;
    }
    case 'end':
      cursors.delete(message.id);
      return;
  }
};
