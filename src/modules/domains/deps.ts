/** What the domains module needs: its store, the domains in memory, the configuration's hosts and the clock. */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { DomainDirectory } from './directory';
import type { DomainStore } from './store';

export interface DomainsDeps {
  stores: { readonly domains: DomainStore };
  domains: DomainDirectory;
  config: Pick<Config, 'shortHost' | 'appHost' | 'port'>;
  clock: Clock;
}
