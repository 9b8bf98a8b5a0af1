/** What the short host needs: the slug index and the click pipeline above all, then the password gate's pieces. */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../lib/log';
import type { ClickPipeline } from '../clicks/public';
import type { DomainDirectory } from '../domains/public';
import type { LinkStore } from '../links/public';
import type { Metrics } from '../metrics/public';
import type { VerificationSlots } from '../sessions/public';
import type { ClickLimitGate } from './click-limit-gate';
import type { LinkIndex } from './link-index';
import type { LinkPasswordThrottle } from './password/throttle';
import type { ReadThrough } from './read-through/read-through';

export interface RedirectDeps {
  stores: {
    readonly links: LinkStore;
    /** The key of a protected link's unlock cookies (password/unlock-cookie.ts). */
    unlockKey(passwordHash: string): Promise<string>;
  };
  config: Config;
  clock: Clock;
  log: Logger;
  /** Every short domain in memory: a request's Host names one, a link's domain id gives its origin. */
  domains: DomainDirectory;
  /** (Domain id, slug) -> redirect facts in memory. */
  linkIndex: LinkIndex;
  /** Asks a domain's upstream for a slug unknown here (read-through/). */
  readThrough: ReadThrough;
  /** Lets human clicks through on links with a click limit. */
  clickLimitGate: ClickLimitGate;
  /** The click buffer the redirect records into. */
  clicks: ClickPipeline;
  /** Prometheus metrics, or null when unset. */
  metrics: Metrics | null;
  /** Every password check of the process runs in these slots. */
  verificationSlots: VerificationSlots;
  linkPasswordThrottle: LinkPasswordThrottle;
  verifyPassword: (password: string, hash: string) => Promise<boolean>;
}
