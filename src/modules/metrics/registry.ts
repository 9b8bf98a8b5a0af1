/**
 * The service's Prometheus metrics (docs/operations.md, "Metrics"), made with prom-client on a
 * registry of their own (one per app, so tests never share counts). Built only when
 * SLINK_METRICS_TOKEN is set: without it nothing here runs, on the redirect path or elsewhere.
 *
 * Cheap at the source: a redirect adds 1 to a plain number; everything read from elsewhere (the
 * click buffer, the flusher's totals, file sizes) is read when Prometheus scrapes, in `collect`.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { StorageBytes } from '../analytics/public';
import type { ClickPipeline } from '../clicks/public';
import type { SignInThrottle } from '../sessions/public';

export interface MetricsSources {
  clicks: ClickPipeline;
  signIn: SignInThrottle;
  /** The database's size on disk, read at each scrape (stores.ts storageBytes). */
  storageBytes: () => Promise<StorageBytes>;
  now: () => number;
  /** This node's name (SLINK_NODE_ID): the `node` label of every metric. */
  node: string;
  /** This process's webhook attempts, and the deliveries pending in the database (any node's). */
  webhooks: { readonly stats: { delivered: number; failed: number }; pending: () => Promise<number> };
  /** Read-through (redirect/read-through/): this node's questions to domains' upstreams by outcome, and those in flight. */
  readThrough: {
    readonly stats: {
      created: number;
      joined: number;
      missing: number;
      failed: number;
      overBound: number;
      recalled: number;
    };
    readonly inFlight: number;
  };
  /** How current the slug index is with other nodes' link writes (PostgreSQL); null on SQLite. */
  follower: { readonly lagSeconds: number; readonly stats: { changes: number; resyncs: number } } | null;
}

/** Batch durations, 1 ms to 10 s: a healthy batch of 2,000 takes tens of ms, a stalled disk seconds. */
const BATCH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A counter that follows a running total kept elsewhere (it only ever adds the difference). */
function followTotal(counter: Counter, total: () => number): () => void {
  let seen = 0;
  return () => {
    const now = total();
    if (now > seen) counter.inc(now - seen);
    seen = Math.max(seen, now);
  };
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  /** Redirect answers by status since the start; turned into the counter at scrape time. */
  private readonly redirectCounts = new Map<number, number>();

  constructor(src: MetricsSources) {
    const registers = [this.registry];
    // Several nodes are scraped apart; the label tells their series apart wherever they meet.
    this.registry.setDefaultLabels({ node: src.node });
    collectDefaultMetrics({ register: this.registry, prefix: 'slink_' });
    this.requests = new Counter({
      name: 'slink_http_requests_total',
      help: 'API, dashboard and docs requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    const counts = this.redirectCounts;
    new Counter({
      name: 'slink_redirects_total',
      help: 'Short-host answers (302 redirects, 404 unknown, 410 expired or over their click limit), by status.',
      labelNames: ['status'],
      registers,
      collect() {
        this.reset();
        for (const [status, n] of counts) this.inc({ status: String(status) }, n);
      },
    });
    const { buffer, flusher } = src.clicks;
    new Gauge({
      name: 'slink_clicks_buffered',
      help: 'Clicks in memory, not yet written.',
      registers,
      collect() {
        this.set(buffer.length);
      },
    });
    const written = new Counter({
      name: 'slink_clicks_written_total',
      help: 'Clicks written to the database.',
      registers,
    });
    const skipped = new Counter({
      name: 'slink_clicks_skipped_total',
      help: 'Clicks not written because their link was deleted first.',
      registers,
    });
    const dropped = new Counter({
      name: 'slink_clicks_dropped_total',
      help: 'Clicks refused because the buffer was full while writes failed.',
      registers,
    });
    const follow = [
      followTotal(written, () => flusher.stats.written),
      followTotal(skipped, () => flusher.stats.skipped),
      followTotal(dropped, () => buffer.droppedTotal),
    ];
    new Gauge({
      name: 'slink_writer_lag_seconds',
      help: 'Age of the oldest click not yet written (0 when none waits).',
      registers,
      collect() {
        for (const update of follow) update();
        const oldest = buffer.oldestTime;
        this.set(oldest === null ? 0 : Math.max(0, src.now() - oldest) / 1000);
      },
    });
    const flush = new Histogram({
      name: 'slink_flush_batch_seconds',
      help: 'From handing a batch to the writer to its answer, on the event loop.',
      buckets: BATCH_BUCKETS,
      registers,
    });
    const write = new Histogram({
      name: 'slink_write_batch_seconds',
      help: "The writer's own time per batch (enrich and transaction).",
      buckets: BATCH_BUCKETS,
      registers,
    });
    flusher.onBatch = (outcome, waitedMs) => {
      flush.observe(waitedMs / 1000);
      write.observe(outcome.ms / 1000);
    };
    // Totals the throttle keeps as plain numbers, read at scrape time.
    const { signIn } = src;
    new Counter({
      name: 'slink_password_verifications_total',
      help: 'Password verifications run (argon2id, about 120 ms of a core each), for sign-ins and password changes.',
      registers,
      collect() {
        this.reset();
        this.inc(signIn.stats.verified);
      },
    });
    new Counter({
      name: 'slink_sign_in_refused_total',
      help: 'Sign-ins and password changes refused before any password check: throttled (too many failures of the email or address) or busy (every verification slot and waiting place taken).',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        this.inc({ reason: 'throttled' }, signIn.stats.throttled);
        this.inc({ reason: 'busy' }, signIn.stats.busy);
      },
    });
    new Gauge({
      name: 'slink_password_verification_slots',
      help: 'Password verifications that may run at once (half the cores, at least one).',
      registers,
      collect() {
        this.set(signIn.limits.verifying);
      },
    });
    new Gauge({
      name: 'slink_database_bytes',
      help: 'Size of the database: the SQLite file, or the PostgreSQL database (pg_database_size).',
      registers,
      async collect() {
        this.set((await src.storageBytes()).database);
      },
    });
    new Gauge({
      name: 'slink_wal_bytes',
      help: "Size of SQLite's write-ahead log beside the file (0 on PostgreSQL, whose WAL is the server's).",
      registers,
      async collect() {
        this.set((await src.storageBytes()).wal);
      },
    });
    const { webhooks } = src;
    new Counter({
      name: 'slink_webhook_attempts_total',
      help: 'Webhook delivery attempts this node made, by outcome: delivered (a 2xx within 10 s) or failed.',
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset();
        this.inc({ outcome: 'delivered' }, webhooks.stats.delivered);
        this.inc({ outcome: 'failed' }, webhooks.stats.failed);
      },
    });
    new Gauge({
      name: 'slink_webhook_deliveries_pending',
      help: 'Webhook deliveries not yet delivered nor given up, in the database (every node).',
      registers,
      async collect() {
        this.set(await webhooks.pending());
      },
    });
    const { readThrough } = src;
    new Counter({
      name: 'slink_read_through_total',
      help: 'Unknown slugs of a domain with an upstream, by outcome: created (the upstream redirected: a new link), joined (another node made it first), missing (the upstream has none), failed (no usable answer), over_bound (not asked: too many questions in flight or begun this second), recalled (not asked: another node had the answer).',
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset();
        const s = readThrough.stats;
        this.inc({ outcome: 'created' }, s.created);
        this.inc({ outcome: 'joined' }, s.joined);
        this.inc({ outcome: 'missing' }, s.missing);
        this.inc({ outcome: 'failed' }, s.failed);
        this.inc({ outcome: 'over_bound' }, s.overBound);
        this.inc({ outcome: 'recalled' }, s.recalled);
      },
    });
    new Gauge({
      name: 'slink_read_through_in_flight',
      help: "Questions to domains' upstreams this node is waiting on (at most 16).",
      registers,
      collect() {
        this.set(readThrough.inFlight);
      },
    });
    const { follower } = src;
    if (follower !== null) {
      new Gauge({
        name: 'slink_link_changes_lag_seconds',
        help: "Seconds since this node last knew its links current with every node's writes (several nodes on PostgreSQL; under 1 while the database answers).",
        registers,
        collect() {
          this.set(follower.lagSeconds);
        },
      });
      new Counter({
        name: 'slink_link_changes_total',
        help: 'Link writes of other nodes applied to this one, and times it read every link again (`resync`) after falling behind.',
        labelNames: ['kind'],
        registers,
        collect() {
          this.reset();
          this.inc({ kind: 'change' }, follower.stats.changes);
          this.inc({ kind: 'resync' }, follower.stats.resyncs);
        },
      });
    }
  }

  redirect(status: number): void {
    this.redirectCounts.set(status, (this.redirectCounts.get(status) ?? 0) + 1);
  }

  request(route: string, method: string, status: number): void {
    this.requests.inc({ route, method, status: String(status) });
  }
}
