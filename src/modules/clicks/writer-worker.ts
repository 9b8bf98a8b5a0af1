/**
 * The click writer thread: its own SQLite connection (WAL lets it write while the main thread
 * reads), its own geo reader, and the same ClickStore as inline mode. Clicks arrive in slices;
 * a commit writes everything received since the last one in one transaction. On failure the
 * slices are discarded here: the main thread still holds the clicks and sends them again.
 */
import { type Db, openDatabase } from '../../db/client';
import { systemClock } from '../../lib/clock';
import { openGeo } from './geo';
import type { WireClick } from './record';
import type { WriterReply, WriterRequest } from './sink';
import { ClickStore } from './store';

declare const self: Worker;

let db: Db | null = null;
let store: ClickStore | null = null;
let received: WireClick[] = [];

function reply(message: WriterReply): void {
  self.postMessage(message);
}

self.onmessage = (event: MessageEvent<WriterRequest>) => {
  const message = event.data;
  switch (message.type) {
    case 'open': {
      try {
        db = openDatabase(message.dbPath, 'writer');
        const geo = openGeo(message.geoDb);
        store = new ClickStore(db.$client, geo, message.ownHosts, systemClock);
        reply({ type: 'ready', geo: geo.source });
      } catch (err) {
        reply({ type: 'fatal', message: err instanceof Error ? err.message : String(err) });
      }
      return;
    }
    case 'add':
      for (const click of JSON.parse(message.json) as WireClick[]) received.push(click);
      return;
    case 'discard':
      received = [];
      return;
    case 'commit': {
      const batch = received;
      received = [];
      try {
        if (!store) throw new Error('click writer is not open');
        reply({ type: 'committed', id: message.id, outcome: store.writeBatch(batch) });
        // Ask for a collection after each batch (asynchronous, it does not block): at saturation
        // this thread is never idle, and JavaScriptCore, which otherwise collects in idle time,
        // let its heap grow ~200 MB further (measured with wrk; no cost in throughput).
        Bun.gc(false);
      } catch (err) {
        reply({ type: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) });
      }
      return;
    }
    case 'close':
      try {
        // Fold the WAL back into the database file before leaving.
        db?.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      } catch {
        // Another connection still reading: the next start checkpoints instead.
      }
      db?.$client.close();
      db = null;
      store = null;
      reply({ type: 'closed' });
      return;
  }
};
