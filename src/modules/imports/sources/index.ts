/**
 * Every source an import can read, by name: what the composition root hands the engine. A name
 * whose source this build lacks is 400 field source.
 */
import { invalid } from '../../../lib/errors';
import type { SourceFactory } from '../deps';
import type { ImportSource, SourceName, SourceOptions } from '../source';
import { slinkSource } from './slink';

const SOURCES: Partial<Record<SourceName, (options: SourceOptions) => ImportSource>> = {
  slink: slinkSource,
};

export const builtInSources: SourceFactory = (name, options) => {
  const make = SOURCES[name];
  if (make === undefined) throw invalid('source', `The ${name} source is not available in this build`);
  return make(options);
};
