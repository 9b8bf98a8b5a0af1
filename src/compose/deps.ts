/**
 * The composition root: builds every module's objects on the engine's stores and gives each
 * module what it asks for. Each module states the narrow deps it needs (its deps.ts); `Deps`
 * holds all of them, and only the root (server, app, CLI, tests) names it: no module imports it.
 */
import type { Config } from '../config';
import type { Db } from '../db/client';
import type { Clock } from '../lib/clock';
import { randomToken } from '../lib/ids';
import type { Logger } from '../lib/log';
import type { Exports } from '../modules/analytics/public';
import { AuditPruner } from '../modules/audit/public';
import { type ClickPipeline, createClickPipeline, ownHostsOf, type PipelineOptions } from '../modules/clicks/public';
import { DomainDirectory, DomainSeenWriter, startDomains } from '../modules/domains/public';
import {
  builtInSources,
  type HistoryWriter,
  type ImportTakeover,
  openImportTakeover,
  type SourceFactory,
} from '../modules/imports/public';
import {
  createLink,
  deleteVariant,
  insertVariant,
  linkJsonById,
  linksUnfiled,
  normalizeLinkDestination,
  slinkHostsOf,
  updateVariant,
} from '../modules/links/public';
import { Metrics } from '../modules/metrics/public';
import {
  type ClickLimitGate,
  createClickLimitGate,
  LinkFollower,
  LinkIndex,
  LinkPasswordThrottle,
  READ_THROUGH_ACCESS,
  ReadThrough,
  reservedSlugsWarning,
} from '../modules/redirect/public';
import { PasswordVerifier, SIGN_IN_LIMITS, type SignInThrottle, VerificationSlots } from '../modules/sessions/public';
import type { VariantWrites } from '../modules/variants/public';
import { WebhookSender } from '../modules/webhooks/public';
import { type Stores, sqliteStores } from './stores';

export interface BaseDeps {
  /** Every module's store, on the engine the configuration chose (stores.ts). */
  stores: Stores;
  /**
   * The SQLite database, for the code not yet behind a store; on PostgreSQL a stand-in that
   * fails loudly when used (unportedDb), so nothing silently reads the wrong engine.
   */
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
}

export interface Deps extends BaseDeps {
  /** Every short domain in memory (domains/directory.ts): read at start, again after every change. */
  domains: DomainDirectory;
  /** Resolves once the default domain is SLINK_SHORT_HOST's and every domain is in memory (before any link). */
  domainsReady: Promise<void>;
  /** A domain's redirect targets follow the destination rules of links, Slink's own hosts refused. */
  checkTargetUrl(raw: string, field: string, planned?: string): void;
  /** Writes when each domain was last asked for (noted in `domains`); the server starts it and stops it. */
  domainSeen: DomainSeenWriter;
  /** Deletes audit entries past their 365 days a small step at a time; the server starts it and stops it. */
  auditPruner: AuditPruner;
  /** Slug -> redirect facts in memory; the LinkWriter (links/writer.ts) refreshes it after every link write. */
  linkIndex: LinkIndex;
  /** Follows the link writes of other processes into `linkIndex`: other nodes (PostgreSQL), an operator command on the same file (SQLite). */
  follower: LinkFollower | null;
  /** Asks a domain's upstream for the slugs unknown on it, and makes links of its redirects. */
  readThrough: ReadThrough;
  /** Resolves once every link is in memory (createDeps loads them; the server loads them in the background). */
  linksLoaded: Promise<number>;
  /**
   * Lets human clicks through on links with a click limit: this process's own count (SQLite),
   * or the count several processes share (PostgreSQL).
   */
  clickLimitGate: ClickLimitGate;
  /** Click buffer and flusher (the server starts the flush timer). */
  clicks: ClickPipeline;
  /** Runs CSV exports (the engine's way: stores.openExports); close() ends them. */
  exports: Exports;
  /** Prometheus metrics, or null when SLINK_METRICS_TOKEN is unset (then nothing is counted). */
  metrics: Metrics | null;
  /**
   * First-run setup secret, new at every start, logged while no account exists; never stored
   * (on PostgreSQL its SHA-256 is, so that every node accepts it: sessions/setup.ts).
   */
  setupToken: string;
  /** Failure limits (in memory, or in the database every node shares) and the verification slots of sign-in. */
  signInThrottle: SignInThrottle;
  /** Every password check of the process runs in these slots: sign-in's and protected links'. */
  verificationSlots: VerificationSlots;
  /** Wrong passwords of protected links, per link and address (in memory, or in the database every node shares). */
  linkPasswordThrottle: LinkPasswordThrottle;
  /** The Workers that check passwords at the lowest CPU priority; close() ends them. */
  passwordVerifier: PasswordVerifier;
  /** argon2id verification (by passwordVerifier); a field so tests can count verifications running at once. */
  verifyPassword: (password: string, hash: string) => Promise<boolean>;
  /** Delivers the outbox's events to webhooks; the server starts it, tests run its passes. */
  webhooks: WebhookSender;
  /** A variant's writes, through the LinkWriter (links/writer.ts): redirect facts. */
  variantWrites: VariantWrites;
  /** After a project's deletion unfiled these links: the LinkWriter's refresh (links/writer.ts linksUnfiled). */
  linksUnfiled(ids: string[]): Promise<void>;
  /** The Links of these ids as JSON (links/event-data.ts): a link event's data when its fill did not happen. */
  linkJson: (ids: readonly string[]) => Promise<Map<string, string>>;
  /** Where an import's history goes (imports/history), taken by this process's click writer. */
  history: HistoryWriter;
  /** Every import source by name (imports/sources). */
  sources: SourceFactory;
  /** Takes other nodes' crashed imports over (PostgreSQL; the server starts and stops it); null on SQLite. */
  takeover: ImportTakeover | null;
  /** This node's name, recorded with each import run. */
  nodeId: string;
  /** Waits out an import source's rate limit or retry (tests give one that does not wait). */
  sleep: (ms: number) => Promise<void>;
  /** How import sources reach the outside (tests give their own). */
  fetch: typeof fetch;
  /** How long an import's start waits for its source (imports' START_CHECK_MS unless given: tests shorten it). */
  startCheckMs?: number;
}

interface DepsOptions extends PipelineOptions {
  /** Load the slug index after returning (the server: it listens first); default: before. */
  linksInBackground?: boolean;
  /** How long the webhook sender's claims last (default its LEASE_MS; tests shorten it). */
  webhookLeaseMs?: number;
}

/** Builds the in-memory parts on an open, migrated database: the click pipeline and the slug index. */
/** What createDeps and the CLI take: `stores` defaults to the SQLite stores of `db`. */
export type BaseInput = Omit<BaseDeps, 'stores'> & { stores?: Stores };

/** The base deps with their stores (the SQLite ones of `db` unless given). */
export function withStores(input: BaseInput): BaseDeps {
  return { ...input, stores: input.stores ?? sqliteStores(input.db) };
}

/**
 * An import's history writer (imports/history) as the privacy switches let a click keep its
 * facts. `process`: this process's click writer takes what is queued and its slug index reads
 * the counts again (the server, the app); the CLI has neither (SQLite: the server's writer takes it).
 */
export function openHistory(
  base: BaseDeps,
  process?: { take: () => Promise<number>; counted: (humans: ReadonlyMap<string, number>) => void },
): HistoryWriter {
  const { config } = base;
  return base.stores.openHistoryWriter({
    policy: { referrer: config.privacy.referrer, geo: config.privacy.geo, ownHosts: ownHostsOf(config) },
    clock: base.clock,
    retentionDays: config.retentionDays,
    take: process?.take,
    counted: process?.counted,
  });
}

export function createDeps(input: BaseInput, options: DepsOptions = {}): Deps {
  const base = withStores(input);
  const clicks = createClickPipeline(base, options);
  const domains = new DomainDirectory();
  const linkIndex = new LinkIndex(
    base.stores,
    clicks.buffer,
    () => domains.default.id,
    (reserved) => base.log.error(reservedSlugsWarning(reserved, (id) => domains.byId(id)?.host ?? String(id))),
  );
  const domainsReady = startDomains(base.stores.domains, domains, base.config.shortHost, base.clock.now(), base.log);
  const reloadDomains = () => domains.refresh(() => base.stores.domains.list());
  const feed = base.stores.changes;
  const follower = feed ? new LinkFollower(feed, linkIndex, base.log, reloadDomains) : null;
  // Loaded here unless the server loads it in the background once listening; the redirect reads
  // the database for a link not in memory while a load runs (await linkIndex.ready for all of them).
  // Following other nodes' changes starts where the database stands before the load.
  const ready = options.linksInBackground
    ? Promise.resolve(0)
    : (async () => {
        await domainsReady;
        await follower?.begin();
        const loaded = await linkIndex.loadAll();
        follower?.start();
        return loaded;
      })();
  // One set of verification slots for every password check of the process: sign-in and protected links.
  // A copy of the limits: each app's own (tests shorten the wait of theirs).
  const { verifying, waiting, waitMs } = SIGN_IN_LIMITS;
  const verificationSlots = new VerificationSlots({ verifying, waiting, waitMs });
  const signInThrottle = base.stores.openSignInThrottle(base.clock, verificationSlots);
  const passwordVerifier = new PasswordVerifier(verificationSlots.limits.verifying, base.log);
  const linkJson = (ids: readonly string[]) => linkJsonById({ ...base, domains }, ids);
  const webhooks = new WebhookSender({ ...base, linkJson }, { leaseMs: options.webhookLeaseMs });
  // A batch that recorded `clicks` events is delivered now, not at the sender's next poll.
  clicks.flusher.onEvents = () => webhooks.wake();
  // SQLite: imported human clicks the writer counted (this process's import or `slink import`
  // beside it) join the slug index's counts, so click limits count them.
  if (base.stores.address.engine === 'sqlite')
    clicks.flusher.onImported = (counts) => {
      for (const [id, humans, storedAfter] of counts) linkIndex.countImported(id, humans, storedAfter);
    };
  const readThrough = new ReadThrough({
    clock: base.clock,
    log: base.log,
    allowPrivate: base.config.upstreamAllowPrivate,
    misses: base.stores.readThroughMisses,
    createLink: (domain, slug, destination) =>
      createLink(deps, READ_THROUGH_ACCESS, { slug, destination, domain: domain.host }),
    learn: (domainId, slug) => linkIndex.learn(slug, domainId),
  });
  const deps: Deps = {
    ...base,
    domains,
    domainsReady,
    domainSeen: new DomainSeenWriter(base.stores.domains, domains, base.log),
    auditPruner: new AuditPruner(base.stores.audit, base.clock, base.log),
    checkTargetUrl: (raw, field, planned) => {
      normalizeLinkDestination(raw, slinkHostsOf({ config: base.config, domains }, planned), field);
    },
    linkIndex,
    follower,
    readThrough,
    linksLoaded: ready,
    clickLimitGate: createClickLimitGate(base.stores.clickLimits, base.log),
    clicks,
    exports: base.stores.openExports(base.log),
    metrics: base.config.metricsToken
      ? new Metrics({
          clicks,
          signIn: signInThrottle,
          storageBytes: () => base.stores.storageBytes(),
          now: () => base.clock.now(),
          node: base.config.nodeId,
          // Several nodes' lag: the feed between the service and an operator command on one SQLite file is not shown.
          follower: base.stores.engine === 'postgres' ? follower : null,
          webhooks: { stats: webhooks.stats, pending: () => base.stores.outbox.pending() },
          readThrough,
        })
      : null,
    setupToken: randomToken(),
    signInThrottle,
    verificationSlots,
    linkPasswordThrottle: new LinkPasswordThrottle(base.clock, base.stores.linkPasswordFailures),
    passwordVerifier,
    verifyPassword: (password, hash) => passwordVerifier.verify(password, hash),
    webhooks,
    variantWrites: {
      insert: (row, audit) => insertVariant(deps, row, audit),
      update: (linkId, id, changes, audit) => updateVariant(deps, linkId, id, changes, audit),
      delete: (linkId, id, audit) => deleteVariant(deps, linkId, id, audit),
    },
    linksUnfiled: (ids) => linksUnfiled(deps, ids),
    linkJson,
    history: openHistory(base, {
      take: async () => {
        const taken = await clicks.flusher.takeImports();
        await clicks.flusher.learnImported();
        return taken;
      },
      // Added to the slug index's counts: a click limit counts imported clicks.
      counted: (humans) => {
        for (const [id, n] of humans) linkIndex.countStored(id, n);
      },
    }),
    sources: builtInSources,
    takeover: openImportTakeover(() => deps, base.stores.imports),
    nodeId: base.config.nodeId,
    sleep: (ms) => Bun.sleep(ms),
    fetch,
  };
  return deps;
}

/**
 * The `db` of a PostgreSQL node: any use throws, naming what was reached. Code reaching it has not
 * been put behind a store yet.
 */
export function unportedDb(): Db {
  const failing = (what: string) =>
    new Proxy(
      {},
      {
        get: (_target, prop) => {
          if (prop === 'then') return undefined;
          throw new Error(`${what}.${String(prop)} of the SQLite database was used on PostgreSQL`);
        },
      },
    );
  const client = failing('db.$client');
  return new Proxy({} as Db, {
    get: (_target, prop) => {
      if (prop === 'then') return undefined;
      if (prop === '$client') return client;
      throw new Error(`db.${String(prop)} of the SQLite database was used on PostgreSQL`);
    },
  });
}
