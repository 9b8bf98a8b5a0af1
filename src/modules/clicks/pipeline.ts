/**
 * The click pipeline of one process: the buffer the redirect pushes into, the flusher that
 * drains it, and the sink that writes. The server uses the writer Worker; tests write inline.
 */
import type { Config } from '../../config';
import type { BaseDeps } from '../../deps';
import { ClickBuffer } from './buffer';
import { ClickFlusher } from './flusher';
import { type GeoLookup, openGeo } from './geo';
import { type ClickSink, InlineSink, WorkerSink } from './sink';
import { ClickStore } from './store';

export interface ClickPipeline {
  buffer: ClickBuffer;
  flusher: ClickFlusher;
  /** Where locations come from ("none" without a database), for the startup log. */
  geoSource: Promise<string>;
}

export interface PipelineOptions {
  /** Write in a Worker thread on its own connection (the server); default inline. */
  worker?: boolean;
  /** Inline mode only: a geo lookup to use instead of opening SLINK_GEO_DB / the bundle. */
  geo?: GeoLookup;
}

/** The host names whose referrers count as internal traffic. */
export function ownHostsOf(config: Pick<Config, 'shortHost' | 'appHost'>): string[] {
  return [
    ...new Set([config.shortHost, config.appHost].map((origin) => new URL(origin).hostname.replace(/^www\./, ''))),
  ];
}

export function createClickPipeline(base: BaseDeps, options: PipelineOptions = {}): ClickPipeline {
  const { config } = base;
  const ownHosts = ownHostsOf(config);
  const buffer = new ClickBuffer();
  let sink: ClickSink;
  let geoSource: Promise<string>;
  if (options.worker) {
    const worker = new WorkerSink({
      dbPath: config.dbPath,
      geoDb: config.geoDb,
      ownHosts,
      retentionDays: config.retentionDays,
    });
    sink = worker;
    geoSource = worker.ready;
  } else {
    const geo = options.geo ?? openGeo(config.geoDb);
    sink = new InlineSink(
      new ClickStore(base.db.$client, geo, ownHosts, base.clock, { retentionDays: config.retentionDays }),
    );
    geoSource = Promise.resolve(geo.source);
  }
  return { buffer, flusher: new ClickFlusher(buffer, sink, base.log), geoSource };
}
