/**
 * Read-through (docs/behaviour.md, "Read-through"): a slug unknown on a domain with an `upstream`
 * is asked there once; a redirect becomes a link with that slug on that domain, made through the
 * links service (so checked, audited and announced to every node like any other), then answered
 * and counted as any redirect. Its invariants:
 * - Known slugs never come here: the redirect asks only after the slug index missed.
 * - One question per (domain, upstream, slug) at a time: concurrent visits wait for the same one.
 * - At most `limits.inFlight` questions at once in the process, and at most `limits.perSecond`
 *   begun a second: a visit over either bound is answered as an unknown slug at once (never
 *   queued), so a scan of random slugs can neither flood the old service nor the database, nor
 *   take the process's CPU from known slugs (an upstream answering at once keeps 16 in flight
 *   for thousands of questions a second, each a connection of its own).
 * - A miss is remembered `limits.missMs` (an hour), a failure `limits.failureMs`, in a map of at
 *   most `limits.missesKept` entries (cleared whole when full: a scan cannot grow it), and, with
 *   several nodes (PostgreSQL), in the database every node reads before asking (`misses`), so a
 *   scan through any node asks the old service once per slug. That read is part of the question:
 *   under the same bound, after the node's own memory missed.
 * - Two nodes asked the same slug at once both try to make the link; the unique index of
 *   (domain, slug) decides, and the loser reads the winner's link and answers with it.
 */
import { BoundedCache } from '../../../lib/bounded-cache';
import type { Clock } from '../../../lib/clock';
import { AppError } from '../../../lib/errors';
import type { Logger } from '../../../lib/log';
import type { Access } from '../../access/public';
import type { DomainFacts } from '../../domains/public';
import { askUpstream, type UpstreamAnswer } from './ask';

export interface ReadThroughLimits {
  /** The deadline of one question to the upstream (the contract's 3 s). */
  timeoutMs: number;
  /** Questions (and the link writes they lead to) in flight at once in the process. */
  inFlight: number;
  /** Questions begun a second at most in the process (and as many at once after a quiet second). */
  perSecond: number;
  /** How long an upstream's "no such link" is remembered. */
  missMs: number;
  /** How long an upstream that failed is not asked again for that slug. */
  failureMs: number;
  /** Remembered answers kept at most. */
  missesKept: number;
}

export const READ_THROUGH_LIMITS: Readonly<ReadThroughLimits> = Object.freeze({
  timeoutMs: 3000,
  inFlight: 16,
  perSecond: 200,
  missMs: 3_600_000,
  failureMs: 60_000,
  missesKept: 50_000,
});

/**
 * Who makes a read-through link, as the audit log shows it: nobody in particular (no account,
 * no key), through `api` (it came from a request to the service, not from the operator's CLI).
 * `actor: {accountId: null, keyId: null}` with `via: "api"` is read-through's alone: every API
 * change has an account. It may set a slug, like an admin (the slug is the visitor's, asked of
 * the old service), in every project and domain.
 */
export const READ_THROUGH_ACCESS: Access = Object.freeze({
  accountId: null,
  keyId: null,
  role: 'admin',
  scope: 'write',
  projects: null,
  domains: null,
  via: 'api',
  superuser: true,
});

/**
 * The answers every node remembers (PostgreSQL: redirect/read-through/postgres.ts); absent with
 * one process (SQLite), whose memory is the only one. `until` and `now` are epoch ms.
 */
export interface SharedMisses {
  /** Until when an answer about this slug stands, or null when none does at `now`. */
  recall(domainId: number, upstream: string, slug: string, now: number): Promise<number | null>;
  remember(domainId: number, upstream: string, slug: string, until: number, now: number): Promise<void>;
}

export interface ReadThroughDeps {
  clock: Clock;
  log: Logger;
  /** SLINK_UPSTREAM_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** Makes the link (the links service's createLink as READ_THROUGH_ACCESS); throws its AppErrors. */
  createLink(domain: DomainFacts, slug: string, destination: string): Promise<unknown>;
  /** Reads the link of this slug from the database into the slug index (a link another node made). */
  learn(domainId: number, slug: string): Promise<unknown>;
  /** The answers the other nodes had (PostgreSQL), null with one process. */
  misses: SharedMisses | null;
  /** The question itself (ask.ts; a benchmark may count them). */
  ask?: typeof askUpstream;
}

export class ReadThrough {
  /** A copy of the limits: each app's own (tests shorten the deadline). */
  readonly limits: ReadThroughLimits = { ...READ_THROUGH_LIMITS };
  /** What happened to the questions of this process (tests, metrics). */
  readonly stats = { asked: 0, created: 0, joined: 0, missing: 0, failed: 0, overBound: 0, recalled: 0 };
  private readonly pending = new Map<string, Promise<void>>();
  /** key -> until when the upstream is not asked again. */
  private readonly remembered: BoundedCache<string, number>;
  /** Questions that may begin now (a bucket refilled at `limits.perSecond`), as of `refilledAt`. */
  private tokens = 0;
  private refilledAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: ReadThroughDeps) {
    this.remembered = new BoundedCache(this.limits.missesKept);
  }

  /** Questions in flight now. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * A visit to `slug`, unknown on `domain` (which has an upstream): a promise that settles once
   * the slug index holds the link if the upstream had one (the redirect then finds it again), or
   * null when the answer is "unknown" now (remembered, or over the bound). Never rejects.
   */
  visit(domain: DomainFacts, slug: string): Promise<void> | null {
    const upstream = domain.upstream;
    if (upstream === null) return null;
    const key = `${domain.id} ${upstream} ${slug}`;
    const asking = this.pending.get(key);
    if (asking !== undefined) return asking;
    const until = this.remembered.get(key);
    if (until !== undefined && this.deps.clock.now() < until) return null;
    if (this.pending.size >= this.limits.inFlight || !this.mayBegin()) {
      this.stats.overBound++;
      return null;
    }
    const run = this.resolve(domain, upstream, slug, key).finally(() => this.pending.delete(key));
    this.pending.set(key, run);
    return run;
  }

  /** Whether a question may begin now (under `limits.perSecond`): takes its turn when it may. */
  private mayBegin(): boolean {
    const now = this.deps.clock.now();
    const { perSecond } = this.limits;
    this.tokens = Math.min(perSecond, this.tokens + ((now - this.refilledAt) * perSecond) / 1000);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }

  /** Remembered here and, with several nodes, for all of them before the visit is answered. */
  private async remember(domain: DomainFacts, upstream: string, slug: string, key: string, forMs: number) {
    const now = this.deps.clock.now();
    this.remembered.set(key, now + forMs);
    await this.deps.misses
      ?.remember(domain.id, upstream, slug, now + forMs, now)
      .catch((err) => this.deps.log.error('read-through: remembering a miss for every node failed', err));
  }

  /** Whether another node's answer about this slug still stands (then remembered here too). */
  private async recalled(domainId: number, upstream: string, slug: string, key: string): Promise<boolean> {
    if (this.deps.misses === null) return false;
    try {
      const until = await this.deps.misses.recall(domainId, upstream, slug, this.deps.clock.now());
      if (until === null) return false;
      this.remembered.set(key, until);
      this.stats.recalled++;
      return true;
    } catch (err) {
      // The database cannot say: the upstream is asked, as with one node.
      this.deps.log.error('read-through: reading the misses of every node failed', err);
      return false;
    }
  }

  private async resolve(domain: DomainFacts, upstream: string, slug: string, key: string): Promise<void> {
    if (await this.recalled(domain.id, upstream, slug, key)) return;
    this.stats.asked++;
    let answer: UpstreamAnswer;
    try {
      answer = await (this.deps.ask ?? askUpstream)(upstream, slug, {
        timeoutMs: this.limits.timeoutMs,
        allowPrivate: this.deps.allowPrivate,
      });
    } catch (err) {
      answer = { kind: 'failed', reason: String(err) };
    }
    if (answer.kind === 'missing') {
      this.stats.missing++;
      await this.remember(domain, upstream, slug, key, this.limits.missMs);
      return;
    }
    if (answer.kind === 'failed') {
      this.stats.failed++;
      await this.remember(domain, upstream, slug, key, this.limits.failureMs);
      return;
    }
    try {
      await this.deps.createLink(domain, slug, answer.location);
      this.stats.created++;
    } catch (err) {
      if (err instanceof AppError && err.code === 'conflict' && err.field === 'slug') {
        // Made meanwhile by another node (or a person): the unique index decided, read its link.
        this.stats.joined++;
        await this.deps
          .learn(domain.id, slug)
          .catch((e) => this.deps.log.error('read-through: reading a link failed', e));
      } else if (err instanceof AppError && err.code === 'invalid_request') {
        // A Location no link may have (not http(s), one of our own hosts, too long), or a slug
        // no link may have: the upstream's answer stands as a miss.
        this.stats.missing++;
        await this.remember(domain, upstream, slug, key, this.limits.missMs);
      } else {
        this.stats.failed++;
        await this.remember(domain, upstream, slug, key, this.limits.failureMs);
        this.deps.log.error(`read-through: the link ${slug} on ${domain.host} could not be made`, err);
      }
    }
  }
}
