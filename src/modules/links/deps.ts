/**
 * What the links module needs. The slug index and the webhook sender are given by the
 * composition root as what links use of them: a refresh after each write, a wake-up.
 */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { DomainDirectory } from '../domains/public';
import type { ProjectStore } from '../projects/public';
import type { VariantStore } from '../variants/public';
import type { OutboxStore } from '../webhooks/public';
import type { LinkStore, LinkWrites } from './store';

/** The stores a Link is read from (toLinks): its row, tags, variants and project name. */
export interface LinkReadStores {
  readonly links: LinkStore;
  readonly variants: VariantStore;
  readonly projects: ProjectStore;
}

export interface LinkReadDeps {
  stores: LinkReadStores;
  config: Config;
  clock: Clock;
  /** The domains links live on: a link's short URL starts with its domain's origin. */
  domains: DomainDirectory;
}

/** What the slug index (redirect/link-index.ts) is to the links module. */
export interface SlugIndexFace {
  refreshMany(ids: Iterable<string>): Promise<void>;
  /** Ends the wait of a click limit's count on this link (settleLink). */
  settle(id: string): void;
  humanClicksOf(id: string): number | undefined;
}

export interface LinksDeps extends LinkReadDeps {
  stores: LinkReadStores & { readonly linkWrites: LinkWrites; readonly outbox: OutboxStore };
  linkIndex: SlugIndexFace;
  /** Wakes the webhook sender after a write recorded events. */
  webhooks: { wake(): void };
}
