/** What the domains module needs: its store, the domains in memory, the configuration's hosts, the clock and the URL rules. */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { DomainDirectory } from './directory';
import type { DomainStore } from './store';

export interface DomainsDeps {
  stores: { readonly domains: DomainStore };
  domains: DomainDirectory;
  config: Pick<Config, 'shortHost' | 'appHost' | 'port' | 'upstreamAllowPrivate'>;
  clock: Clock;
  /**
   * The destination rules of links, one of Slink's own hosts (its domains included) refused
   * (links/own-host.ts): a domain's targets and upstream follow them as a link's fallbackUrl
   * does. Given by the composition root, so that domains import nothing of links. `planned`:
   * the origin of a domain not made yet, refused as one of Slink's (checkNewDomainPatch).
   */
  checkTargetUrl(raw: string, field: string, planned?: string): void;
}
