/**
 * Every source an import can read, by name: `sourceFor` builds one from the request's options
 * (address, token, file, the injected fetch and sleep), and `builtInSources` is what the
 * composition root hands the engine. Building checks only what is missing (a SourceError naming
 * the option); `check()` then asks the product once. A name whose source this build lacks is 400
 * field source.
 */

import { invalid } from '../../../lib/errors';
import type { SourceFactory } from '../deps';
import type { ImportSource, SourceName, SourceOptions } from '../source';
import { bitlySource } from './bitly';
import { csvSource } from './csv';
import { dubSource } from './dub';
import { kuttSource } from './kutt';
import { shlinkSource } from './shlink';
import { slinkSource } from './slink';
import { yourlsSource } from './yourls';

const SOURCES: Partial<Record<SourceName, (options: SourceOptions) => ImportSource>> = {
  shlink: shlinkSource,
  bitly: bitlySource,
  kutt: kuttSource,
  yourls: yourlsSource,
  dub: dubSource,
  csv: csvSource,
  slink: slinkSource,
};

/** The other products' sources (`slink`, this service's own export, is the one left out). */
export const PRODUCT_SOURCES = (Object.keys(SOURCES) as SourceName[]).filter((name) => name !== 'slink');

export const builtInSources: SourceFactory = (name, options) => {
  const make = SOURCES[name];
  if (make === undefined) throw invalid('source', `The ${name} source is not available in this build`);
  return make(options);
};

export const sourceFor: SourceFactory = builtInSources;
