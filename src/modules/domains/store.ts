/** What the domains module keeps, in its own words; one implementation per engine beside it. */
import type { DomainRow } from './table';

export type { DomainRow };

export interface DomainStore {
  /** Every domain, oldest first (then by id). */
  list(): Promise<DomainRow[]>;
  /**
   * Makes the domain of `host` the default one, with `origin` (SLINK_SHORT_HOST), in one
   * transaction: an existing domain of that host becomes the default (its origin updated: the
   * scheme or port may have changed), else the first domain when it is still unnamed (the
   * migration's, holding the links made before domains) is named so, else a new one is added.
   * Every other domain stops being the default. Returns whether anything changed.
   */
  ensureDefault(host: string, origin: string, now: number): Promise<boolean>;
}
