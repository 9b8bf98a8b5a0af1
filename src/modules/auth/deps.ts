/** What the auth module's verbs need: its stores and the clock (the composition root gives more; these suffice). */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { AccountStore, KeyStore } from './store';

export interface AuthDeps {
  stores: { readonly accounts: AccountStore; readonly keys: KeyStore };
  config: Config;
  clock: Clock;
}
