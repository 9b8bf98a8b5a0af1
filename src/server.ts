/**
 * Starts the service: open the database and migrate it (docs/operations.md, "The database
 * file"), convert clicks an older release stored, do the start's own click writes (rebuild
 * missing rollups, fold the clicks a killed writer had not folded, replay the spill file), start
 * the click writer and its flush, listen; the app and the slug index are built after the server
 * listens. When the start's writes fail for want of space, it starts anyway with the click
 * writer held until they succeed (start-writes.ts).
 * SIGTERM/SIGINT stop accepting, finish in-flight requests, cut running exports off, flush every
 * buffered click (retrying until a deadline while writes fail, then saving what is left to the
 * spill file, replayed at the next start) and close the database.
 */

import { existsSync } from 'node:fs';
import { type App, createApp } from './app';
import { createDeps } from './compose/deps';
import { type Config, ConfigError } from './config';
import { routable } from './http/client';
import { errorResponse } from './http/errors';
import { MAX_BODY_BYTES, MAX_UPLOAD_BYTES } from './http/json-body';
import { removeOrphanUploads } from './http/upload-stream';
import { type Clock, systemClock } from './lib/clock';
import { AppError, describeError } from './lib/errors';
import { consoleLoggerOf, type Logger } from './lib/log';
import { STOP_FLUSH_DEADLINE_MS, STOP_FLUSH_RETRY_MS, type StopResult } from './modules/clicks/public';
import { createShortSite } from './modules/redirect';
import { setupAddress, withdrawSetupToken } from './modules/sessions/public';
import { openServerStorage } from './storage';

export type { StopResult };

interface RunningServer {
  port: number;
  stop(): Promise<StopResult>;
}

export interface ServerOptions {
  /** How long a stop retries the final flush before spilling (default STOP_FLUSH_DEADLINE_MS). */
  stopFlushDeadlineMs?: number;
  /** Pause between those attempts (default STOP_FLUSH_RETRY_MS). */
  stopFlushRetryMs?: number;
  /** The main thread's clock (tests move it days on); the click writer Worker keeps the system clock. */
  clock?: Clock;
  /** How long a webhook delivery stays claimed (default the sender's LEASE_MS, 30 s). */
  webhookLeaseMs?: number;
  /** How long the start waits for an unreachable PostgreSQL (default CONNECT_DEADLINE_MS, 30 s). */
  connectDeadlineMs?: number;
  /** Called once the server listens (requests may come in from then on, before the start returns). */
  listening?: () => void;
}

export async function startServer(
  config: Config,
  log: Logger = consoleLoggerOf(config.nodeId),
  options: ServerOptions = {},
): Promise<RunningServer> {
  // The writer thread opens the geo database; a configured path that is not there must stop
  // the start here, loudly, not leave clicks unwritten.
  if (config.geoDb && !existsSync(config.geoDb)) throw new ConfigError(`SLINK_GEO_DB: no file at ${config.geoDb}`);
  const clock = options.clock ?? systemClock;
  const storage = await openServerStorage(config, log, clock, options.connectDeadlineMs);
  const { db, stores, clicks: clickStart } = storage;
  // Clicks are enriched and written by a Worker on its own connection: the event loop that
  // serves redirects never runs a click transaction.
  const deps = createDeps(
    { db, stores, config, clock, log },
    {
      worker: true,
      linksInBackground: true,
      writerHeld: clickStart.writerHeld,
      webhookLeaseMs: options.webhookLeaseMs,
    },
  );
  clickStart.running({
    counted: (linkId, humans) => deps.linkIndex.countStored(linkId, humans),
    openWriter: () => deps.clicks.openWriter(),
  });
  deps.clicks.flusher.start(config.flushMs);
  // Redirects and the short host's pages are answered here, before Elysia builds a request
  // context: the short host costs what its own work costs. Everything else (API, docs, health)
  // goes to the app, told not to run the same check again (without the option, as in tests'
  // app.handle(), its first hook runs it).
  // The app itself (~20 ms of route and OpenAPI setup) is built after the server listens, so the
  // first redirect never waits for it.
  // One short read: a redirect routes by domain from its first request on.
  await deps.domainsReady;
  // Other nodes' link writes are followed from where the database stands before the load
  // (begin never throws); until the load ends, a slug not in memory is read from the database.
  // Begun before the server listens: from its first request on, a slug not in memory is read
  // there, never taken for an unknown one (nor asked of a read-through upstream) while the start
  // still awaits the database below.
  const following = deps.follower?.begin().then(() => deps.follower?.start());
  deps.linkIndex.loadInBackground(undefined, following).then(
    (links) => log.info(`${links} links in memory`),
    // Redirects still work: a slug not in memory is read from SQLite while the load is incomplete.
    (err) => log.error('loading the links into memory failed; redirects read them from the database', err),
  );
  const shortSite = createShortSite(deps);
  let app: App | null = null;
  const ensureApp = (): App => {
    if (app === null) {
      app = createApp(deps, { shortSiteAnswered: true });
      app.compile();
      // Elysia reads the server from here for its context (client addresses in the API guard).
      app.server = server;
    }
    return app;
  };
  const server = Bun.serve({
    port: config.port,
    hostname: config.hostname,
    // A second server on the same port must fail loudly, not take half the traffic.
    reusePort: false,
    development: false,
    idleTimeout: 30,
    // The API guard answers 413 with the documented error body below this; Bun cuts off above it
    // (an import's upload has a limit of its own: json-body.ts).
    maxRequestBodySize: Math.max(MAX_BODY_BYTES * 2, MAX_UPLOAD_BYTES + 1024 * 1024),
    fetch: (request, bunServer) => shortSite({ request, server: bunServer }) ?? ensureApp().fetch(routable(request)),
    // Reached only by an error the app's own mapper did not answer (a bug): Bun's default would
    // answer a plain-text 500 and log the stack. One line, and the API's generic 500.
    error: (err) => {
      log.error(`unhandled error outside the app: ${describeError(err)}`);
      return errorResponse(new AppError('internal_error', 'Something went wrong on our side'));
    },
  });
  options.listening?.();
  setTimeout(ensureApp, 0);
  const port = server.port ?? config.port;
  log.info(
    `slink listening on http://${config.hostname}:${port} (short links: ${config.shortHost}, app: ${config.appHost}, ${storage.where}, node: ${config.nodeId})`,
  );
  // The one place a secret is logged: whoever reads the log may create the first superuser.
  // Awaited (one read; the server already listens) so the line is in the log when the start returns.
  try {
    const setup = await setupAddress(deps);
    if (setup) log.info(`no account exists yet: create the first superuser at ${setup}`);
  } catch (err) {
    log.error('could not tell whether an account exists', err);
  }
  deps.clicks.geoSource.then(
    (geo) => log.info(`click writer ready; geo: ${geo}; clicks flushed every ${config.flushMs} ms`),
    (err) => log.error('the click writer could not start: clicks stay buffered', err),
  );

  // Deliveries due from before this start (a restart, a crash) go out at once.
  deps.webhooks.start();
  // When each domain was last asked for: written once a minute, and at the stop.
  deps.domainSeen.start();
  deps.auditPruner.start();
  // An upload whose process was killed while its run read it is still in the temporary folder.
  try {
    removeOrphanUploads();
  } catch (err) {
    log.error('imports: removing the uploads of stopped processes', err);
  }
  // Several nodes: this one's key published, so runs started anywhere are sealed to it and it
  // takes over those of a node that dies (imports/takeover.ts).
  await deps.takeover?.start().catch((err) => log.error('imports: this node cannot take crashed runs over', err));

  let stopping: Promise<StopResult> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting and let in-flight redirects finish, so every click is in the buffer...
      const stopped = server.stop();
      deps.linkIndex.stopLoading();
      // A running export would hold the stop for as long as its client reads; end them now
      // (the client sees a cut-off download) so the final flush never waits on one.
      deps.exports.close();
      deps.passwordVerifier.close();
      await stopped;
      // Attempts in flight end (each within the delivery timeout) and record their outcome; what
      // is still due is delivered by the next start or by another node.
      await deps.webhooks.stop();
      await deps.takeover?.stop();
      await deps.domainSeen.stop();
      await deps.auditPruner.stop();
      // The setup address this node logged stops working on every node with it.
      await withdrawSetupToken(deps).catch((err) => log.error('could not delete the setup token of this node', err));
      // ...then write all of it before the database closes, retrying while writes fail (a full
      // disk may be freed meanwhile) until the deadline...
      // (A start still waiting for space keeps trying meanwhile: its writer may open in time.)
      const { flusher } = deps.clicks;
      const flushed = await flusher.stop(
        options.stopFlushDeadlineMs ?? STOP_FLUSH_DEADLINE_MS,
        options.stopFlushRetryMs ?? STOP_FLUSH_RETRY_MS,
      );
      // ...and what the database still would not take goes to the spill file.
      const result = await clickStart.stop(flusher.takeAll(), flushed);
      await deps.follower?.stop();
      await storage.close();
      log.info(`slink stopped (${flusher.stats.written} clicks written this run)`);
      return result;
    })());
  return { port, stop };
}

/**
 * Runs until SIGTERM or SIGINT, then stops and exits: 0 when every click is in the database or
 * the spill file, 1 when some could be saved in neither (or the stop failed).
 */
export async function serveForever(config: Config, options: ServerOptions = {}): Promise<void> {
  const log = consoleLoggerOf(config.nodeId);
  // Listened for before the start: once the server listens, clicks may be buffered before the
  // start returns (it still logs the setup address), and a signal then must flush them too.
  let listening = false;
  let started: Promise<RunningServer> | null = null;
  const shutdown = (signal: string) => {
    log.info(`${signal} received, shutting down`);
    // Nothing answered yet, so nothing to keep: ended as the signal's default would.
    if (!listening || started === null) process.exit(signal === 'SIGINT' ? 130 : 143);
    started
      .then((server) => server.stop())
      .then(
        ({ lost }) => {
          if (lost > 0) log.error(`exiting with status 1: ${lost} clicks lost`);
          process.exit(lost > 0 ? 1 : 0);
        },
        (err) => {
          log.error('shutdown failed', err);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  started = startServer(config, log, {
    ...options,
    listening: () => {
      listening = true;
    },
  });
  await started;
}
