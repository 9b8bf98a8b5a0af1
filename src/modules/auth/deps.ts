/** What the auth module's verbs need: its stores and the clock (the composition root gives more; these suffice). */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { AccountStore, KeyStore } from './store';

/** What limits are checked against: the projects and domains that exist (their modules' stores answer). */
interface KnownProjects {
  /** Names of these projects by id: an id absent from the answer names no project. */
  names(ids: Iterable<string | null>): Promise<Map<string, string>>;
}
interface KnownDomains {
  list(): Promise<readonly { id: number; host: string }[]>;
}

export interface AuthDeps {
  stores: {
    readonly accounts: AccountStore;
    readonly keys: KeyStore;
    readonly projects: KnownProjects;
    readonly domains: KnownDomains;
  };
  config: Config;
  clock: Clock;
}
