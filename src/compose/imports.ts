/**
 * What `slink import` runs an import with: the links' writer on the command's own connection,
 * without the service's in-memory parts. Its link writes reach a running service through the
 * change feed (links/changes.ts), never through this process's memory: there is no slug index
 * here to refresh, and the service's webhook sender finds the events in the outbox.
 */
import { DomainDirectory, startDomains } from '../modules/domains/public';
import { builtInSources, type ImportDeps } from '../modules/imports/public';
import { normalizeLinkDestination, slinkHostsOf } from '../modules/links/public';
import { type BaseDeps, openHistory } from './deps';

export async function cliImportDeps(base: BaseDeps): Promise<ImportDeps> {
  const domains = new DomainDirectory();
  await startDomains(base.stores.domains, domains, base.config.shortHost, base.clock.now(), base.log);
  return {
    stores: base.stores,
    config: base.config,
    clock: base.clock,
    log: base.log,
    domains,
    checkTargetUrl: (raw, field, planned) => {
      normalizeLinkDestination(raw, slinkHostsOf({ config: base.config, domains }, planned), field);
    },
    linkIndex: { refreshMany: async () => {}, settle: () => {}, humanClicksOf: () => undefined },
    webhooks: { wake: () => {} },
    // No click writer here: on SQLite the service's takes the history queued (or the next start's).
    history: openHistory(base),
    sources: builtInSources,
    // A run of the CLI belongs to its terminal: killed, it is interrupted, never taken over.
    takeover: null,
    nodeId: base.config.nodeId,
    sleep: (ms) => Bun.sleep(ms),
    fetch,
  };
}
