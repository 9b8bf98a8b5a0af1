/**
 * What the webhooks module needs. A link event recorded without its data (a crash between the
 * link write's commit and its fill) is given the link as it is now by `linkJson`, which the
 * composition root takes from the links module: webhooks import nothing of links.
 */
import type { Config } from '../../config';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../lib/log';
import type { OutboxStore } from './outbox/store';
import type { WebhookStore } from './store';

/** The Links of these ids that still exist, as JSON by id. */
export type LinkJsonOf = (ids: readonly string[]) => Promise<Map<string, string>>;

export interface WebhooksDeps {
  stores: {
    readonly webhooks: WebhookStore;
    readonly outbox: OutboxStore;
    /**
     * A link (a live stream of one link: whether it exists and who sees it), and the project of
     * links (of a `clicks` batch, for a stream limited to projects): the links store is one.
     */
    readonly links: {
      find(id: string): Promise<{ projectId: string | null; domainId: number } | null>;
      findMany(ids: string[]): Promise<{ id: string; projectId: string | null }[]>;
    };
  };
  config: Config;
  clock: Clock;
  log: Logger;
  linkJson: LinkJsonOf;
}

/** The routes' too: the sender, woken when a test event or a re-enabled webhook has something due. */
export interface WebhookRoutesDeps extends WebhooksDeps {
  webhooks: { wake(): void };
}
