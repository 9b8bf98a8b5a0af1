/**
 * Starts the service: open the database, migrate (convert clicks an older release stored, rebuild
 * missing rollups, fold the clicks a killed writer had not folded), start the click writer and
 * its flush, listen; the app and the slug index are built after the server listens.
 * SIGTERM/SIGINT stop accepting, finish in-flight requests, cut running exports off, flush every
 * buffered click and close the database.
 */

import { existsSync } from 'node:fs';
import { type App, createApp } from './app';
import { type Config, ConfigError } from './config';
import { applyPragmas, openDatabase } from './db/client';
import { migrateDatabase } from './db/migrate';
import { consoleLogger, createDeps } from './deps';
import { MAX_BODY_BYTES } from './http/json-body';
import { systemClock } from './lib/clock';
import { refoldUnfolded } from './modules/clicks/fold';
import { rebuildRollupsIfMissing } from './modules/clicks/rebuild';
import { upgradeClickStorage } from './modules/clicks/upgrade';
import { createShortSite } from './modules/redirect';
import { setupAddress } from './modules/sessions/setup';

interface RunningServer {
  port: number;
  stop(): Promise<void>;
}

export function startServer(config: Config, log = consoleLogger): RunningServer {
  // The writer thread opens the geo database; a configured path that is not there must stop
  // the start here, loudly, not leave clicks unwritten.
  if (config.geoDb && !existsSync(config.geoDb)) throw new ConfigError(`SLINK_GEO_DB: no file at ${config.geoDb}`);
  const db = openDatabase(config.dbPath);
  migrateDatabase(db);
  // Clicks stored by an older release are converted before the writer starts and before the
  // server listens: the writer's ids must follow the converted ones, and statistics must not
  // answer from half a conversion. On a large database this takes a while (progress is logged;
  // docs/operations.md, "Upgrading": run `slink migrate` first to keep it out of the start).
  upgradeClickStorage(db.$client, { log: (line) => log.info(line) });
  const rebuilt = rebuildRollupsIfMissing(db.$client);
  if (rebuilt > 0) log.info(`statistics rebuilt from ${rebuilt} recorded clicks`);
  const refolded = refoldUnfolded(db.$client);
  if (refolded > 0) log.info(`${refolded} clicks written before the last stop counted in the statistics`);
  // From here on the writer Worker writes the clicks and checkpoints; this connection serves the API.
  applyPragmas(db.$client, 'server');
  // Clicks are enriched and written by a Worker on its own connection: the event loop that
  // serves redirects never runs a click transaction.
  const deps = createDeps({ db, config, clock: systemClock, log }, { worker: true, linksInBackground: true });
  deps.clicks.flusher.start(config.flushMs);
  // Redirects and the short host's pages are answered here, before Elysia builds a request
  // context: the short host costs what its own work costs. Everything else (API, docs, health)
  // goes to the app, told not to run the same check again (without the option, as in tests'
  // app.handle(), its first hook runs it).
  // The app itself (~20 ms of route and OpenAPI setup) is built after the server listens, so the
  // first redirect never waits for it.
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
    // The API guard answers 413 with the documented error body below this; Bun cuts off above it.
    maxRequestBodySize: MAX_BODY_BYTES * 2,
    fetch: (request, bunServer) => shortSite({ request, server: bunServer }) ?? ensureApp().fetch(request),
  });
  setTimeout(ensureApp, 0);
  const port = server.port ?? config.port;
  log.info(
    `slink listening on http://${config.hostname}:${port} (short links: ${config.shortHost}, app: ${config.appHost}, db: ${config.dbPath})`,
  );
  // The one place a secret is logged: whoever reads the log may create the first superuser.
  const setup = setupAddress(deps);
  if (setup) log.info(`no account exists yet: create the first superuser at ${setup}`);
  deps.clicks.geoSource.then(
    (geo) => log.info(`click writer ready; geo: ${geo}; clicks flushed every ${config.flushMs} ms`),
    (err) => log.error('the click writer could not start: clicks stay buffered', err),
  );
  deps.linkIndex.loadInBackground().then(
    (links) => log.info(`${links} links in memory`),
    // Redirects still work: a slug not in memory is read from SQLite while the load is incomplete.
    (err) => log.error('loading the links into memory failed; redirects read them from the database', err),
  );

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting and let in-flight redirects finish, so every click is in the buffer...
      const stopped = server.stop();
      deps.linkIndex.stopLoading();
      // A running export would hold the stop for as long as its client reads; end them now
      // (the client sees a cut-off download) so the final flush never waits on one.
      deps.exports.close();
      await stopped;
      // ...then write all of it before the database closes.
      const flushed = await deps.clicks.flusher.stop();
      const left = deps.clicks.buffer.length;
      if (!flushed) log.error(`final click flush failed: ${left} clicks could not be written`);
      db.$client.close();
      log.info(`slink stopped (${deps.clicks.flusher.stats.written} clicks written this run)`);
    })());
  return { port, stop };
}

/** Runs until SIGTERM or SIGINT, then stops cleanly and exits 0. */
export function serveForever(config: Config): void {
  const server = startServer(config);
  const shutdown = (signal: string) => {
    consoleLogger.info(`${signal} received, shutting down`);
    server.stop().then(
      () => process.exit(0),
      (err) => {
        consoleLogger.error('shutdown failed', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
