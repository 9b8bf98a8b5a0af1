/** What the imports module needs: the links' writer and stores, its own store, the history writer, the sources. */
import type { Logger } from '../../lib/log';
import type { DomainStore } from '../domains/public';
import type { LinksDeps } from '../links/public';
import type { HistoryWriter } from './history';
import type { ImportSource, SourceName, SourceOptions } from './source';
import type { ImportStore } from './store';

/** Builds a source from its name and options (the composition root knows every source). */
export type SourceFactory = (name: SourceName, options: SourceOptions) => ImportSource;

export interface ImportDeps extends LinksDeps {
  stores: LinksDeps['stores'] & { readonly imports: ImportStore; readonly domains: DomainStore };
  /** A domain's targets checked as a link's destination is (the domains module's DomainsDeps): a source's domains are made here. */
  checkTargetUrl(raw: string, field: string, planned?: string): void;
  log: Logger;
  /** Where a link's history goes (visits, days, totals); null: no history is stored. */
  history: HistoryWriter | null;
  sources: SourceFactory;
  /**
   * Where a run this process starts is sealed to the other nodes, and how it takes theirs over
   * when they die (PostgreSQL's service); null: a run dies with its process (SQLite, the CLI).
   */
  takeover: RunHandover | null;
  /** This node's name (SLINK_NODE_ID), recorded with each run. */
  nodeId: string;
  /** Waits out a source's rate limit or a retry; injected so tests never sleep on the clock. */
  sleep: (ms: number) => Promise<void>;
  fetch: typeof fetch;
  /** How long the start of a run waits for its source's check (service.ts START_CHECK_MS unless given; tests shorten it). */
  startCheckMs?: number;
}

/** This node's part in another node's taking its runs over (takeover.ts, ImportTakeover). */
export interface RunHandover {
  /** Whether this node's key is published: only then are its runs sealed to the others. */
  readonly active: boolean;
  /** Seals a run's secret (the source's address as given and token) to the live nodes without a copy. */
  seal(runId: string, secret: { url: string | null; token: string | null }): Promise<void>;
  /** A run others hold copies of: handed over when this node stops. */
  hold(runId: string, controller: AbortController, done: Promise<unknown>): void;
}
