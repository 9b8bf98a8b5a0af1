/**
 * The click pipeline of one process: the buffer the redirect pushes into and the flusher that
 * drains it. Created once per app; the server starts its timer, tests flush by hand.
 */
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import type { Logger } from '../../deps';
import type { Clock } from '../../lib/clock';
import { ClickBuffer } from './buffer';
import { ClickFlusher } from './flusher';
import { openGeo, type GeoLookup } from './geo';
import { createClickWriter } from './repo';
import { VisitorHasher } from './visitor';

export interface ClickPipeline {
  buffer: ClickBuffer;
  flusher: ClickFlusher;
  geo: GeoLookup;
}

export function createClickPipeline(base: { db: Db; config: Config; clock: Clock; log: Logger }, geo?: GeoLookup): ClickPipeline {
  const sqlite = base.db.$client;
  const buffer = new ClickBuffer();
  const lookup = geo ?? openGeo(base.config.geoDb);
  const ownHosts = [...new Set([base.config.shortHost, base.config.appHost].map((origin) => new URL(origin).hostname.replace(/^www\./, '')))];
  const flusher = new ClickFlusher(buffer, createClickWriter(sqlite), { geo: lookup, hasher: new VisitorHasher(sqlite), ownHosts }, base.clock, base.log);
  return { buffer, flusher, geo: lookup };
}
