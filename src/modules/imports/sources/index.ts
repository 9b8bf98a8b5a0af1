/**
 * The sources an import reads, by name: `sourceFor` builds one from the request's options
 * (address, token, file, the injected fetch and sleep). Building checks only what is missing
 * (a SourceError naming the option); `check()` then asks the product once. `builtInSources` is
 * every source an import can read, what the composition root hands the engine. A name whose
 * source this build lacks is 400 field source.
 */

import { invalid } from '../../../lib/errors';
import type { SourceFactory } from '../deps';
import type { ImportSource, SourceName, SourceOptions } from '../source';
import { SourceError } from '../source';
import { bitlySource } from './bitly';
import { csvSource } from './csv';
import { dubSource } from './dub';
import { kuttSource } from './kutt';
import { shlinkSource } from './shlink';
import { slinkSource } from './slink';
import { yourlsSource } from './yourls';

const BUILDERS: Partial<Record<SourceName, (options: SourceOptions) => ImportSource>> = {
  shlink: shlinkSource,
  bitly: bitlySource,
  kutt: kuttSource,
  yourls: yourlsSource,
  dub: dubSource,
  csv: csvSource,
};

/** The names sourceFor builds (`slink`, this service's own export, is read where the export lives). */
export const PRODUCT_SOURCES = Object.keys(BUILDERS) as SourceName[];

export function sourceFor(name: SourceName, options: SourceOptions): ImportSource {
  const build = BUILDERS[name];
  if (build === undefined) throw new SourceError(`no import source is named ${name} here`, false);
  return build(options);
}

const SOURCES: Partial<Record<SourceName, (options: SourceOptions) => ImportSource>> = {
  ...BUILDERS,
  slink: slinkSource,
};

export const builtInSources: SourceFactory = (name, options) => {
  const make = SOURCES[name];
  if (make === undefined) throw invalid('source', `The ${name} source is not available in this build`);
  return make(options);
};
