/**
 * The click pipeline of one process: the buffer the redirect pushes into, the flusher that
 * drains it, and the sink that writes. The server uses the writer Worker; tests write inline.
 */
import type { Config } from '../../../config';
import type { ClicksDeps } from '../deps';
import { type GeoLookup, geoAt, openGeoAt } from '../enrich/geo';
import { ClickBuffer } from './buffer';
import { ClickFlusher } from './flusher';
import { type ClickSink, HeldSink, type HoldReason, InlineSink, WorkerSink } from './sink';

export interface ClickPipeline {
  buffer: ClickBuffer;
  flusher: ClickFlusher;
  /** Where locations come from ("none" without a database), for the startup log; settles once the writer opens. */
  geoSource: Promise<string>;
  /** Opens the held writer; false when none is held or the pipeline is closing. */
  openWriter(): boolean;
}

export interface PipelineOptions {
  /** Write in a Worker thread on its own connection (the server); default inline. */
  worker?: boolean;
  /** Inline mode only: a geo lookup to use instead of opening SLINK_GEO_DB / the bundle. */
  geo?: GeoLookup;
  /**
   * Worker mode: the writer does not open yet, for this reason (the server's start could not do
   * its own writes: a full disk). Clicks wait in the buffer until `openWriter()`.
   */
  writerHeld?: HoldReason;
}

/** The host names whose referrers count as internal traffic. */
export function ownHostsOf(config: Pick<Config, 'shortHost' | 'appHost'>): string[] {
  return [
    ...new Set([config.shortHost, config.appHost].map((origin) => new URL(origin).hostname.replace(/^www\./, ''))),
  ];
}

export function createClickPipeline(base: ClicksDeps, options: PipelineOptions = {}): ClickPipeline {
  const { config } = base;
  const ownHosts = ownHostsOf(config);
  const buffer = new ClickBuffer();
  if (!options.worker) {
    const geo = options.geo ? geoAt(options.geo, config.privacy.geo) : openGeoAt(config.geoDb, config.privacy.geo);
    const store = base.stores.openClickWriter({
      geo,
      ownHosts,
      clock: base.clock,
      retentionDays: config.retentionDays,
    });
    const flusher = new ClickFlusher(buffer, new InlineSink(store), base.log);
    return { buffer, flusher, geoSource: Promise.resolve(geo.source), openWriter: () => false };
  }
  // Settles with the Worker's answer to `open`, whenever the Worker is made.
  const { promise: geoSource, resolve } = Promise.withResolvers<string>();
  const openWorker = (): ClickSink => {
    const worker = new WorkerSink({
      database: base.stores.address,
      geoDb: config.geoDb,
      geoLevel: config.privacy.geo,
      ownHosts,
      retentionDays: config.retentionDays,
      node: config.nodeId,
    });
    resolve(worker.ready);
    return worker;
  };
  const held = options.writerHeld === undefined ? null : new HeldSink(options.writerHeld);
  const flusher = new ClickFlusher(buffer, held ?? openWorker(), base.log);
  return { buffer, flusher, geoSource, openWriter: () => held?.release(openWorker) ?? false };
}
