/**
 * Another node takes a crashed import over (PostgreSQL, several nodes; docs/behaviour.md,
 * "Imports"). The source's token may live only in memory, so it is never stored in clear:
 * each node makes a key pair at its start (seal.ts), keeps the private half in memory and
 * publishes the public half (import_nodes, its liveness a session advisory lock). The node
 * running an import seals the run's secret (the source's address and token) to every other
 * live node's key, and again after each page to nodes that came since; only those sealed
 * copies are stored, and only while the run lives.
 *
 * A node looks for running runs with a copy sealed to it when told a copy was sealed (NOTIFY),
 * at its start and every CHECK_MS, and waits on each one's source lock (up to WATCHES runs;
 * beyond, each look tries the lock): PostgreSQL grants it the instant the running node's
 * session ends (killed, crashed, or handing the run over as it stops), so it opens its copy and
 * runs the run on at once from its saved position under the same id, counts and report. A copy
 * that no longer opens fails the run "interrupted" as before; so does a run with no live node
 * holding a copy (all restarted), as soon as it is read or a node's next look finds it (its
 * copies and file deleted with it).
 */
import type { ImportDeps, RunHandover } from './deps';
import { HandingOver } from './runner/plan';
import { NodeKey, seal } from './seal';
import type { ImportRunRow, TakeoverStore } from './store';

/**
 * How often a node looks again without being told: the backstop for a notification lost while
 * its listening connection was down, a wait that failed, and lost runs to mark. A crashed run
 * is found by the wait on its lock, at once.
 */
export const CHECK_MS = 30_000;

/**
 * Runs a node waits on at most, each on a connection of the pool (POOL_SIZE) for as long as
 * the run lives; past that, each look tries their locks instead.
 */
export const WATCHES = 3;

/** What a run's secret is: the source's address as given (its query may hold a key) and token. */
export interface RunSecret {
  url: string | null;
  token: string | null;
}

/** Marks a run whose node is gone and that no live node can take over interrupted (service.ts). */
export type MarkLost = (run: ImportRunRow) => Promise<void>;

/** Runs a run taken over (service.ts): resolves once it has started. */
export type TakeOverRun = (
  found: NonNullable<Awaited<ReturnType<TakeoverStore['takeOver']>>>,
  secret: RunSecret | null,
) => Promise<void>;

export class ImportTakeover implements RunHandover {
  private key: NodeKey | null = null;
  private publication: { close(): Promise<void> } | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private checking: Promise<void> | null = null;
  private readonly held = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  /** The runs this node waits on, by id: the switch that ends the wait, and the wait. */
  private readonly watching = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private unlisten: (() => Promise<void>) | null = null;
  /** A look was asked for while one ran: it runs again once that one ends. */
  private again = false;
  private startedAt = 0;

  constructor(
    private readonly store: TakeoverStore,
    private readonly deps: () => Pick<ImportDeps, 'log' | 'nodeId' | 'clock'>,
    /** This process among the nodes (a new one at every start: its key is new too). */
    readonly instance: string,
    private readonly takeOverRun: TakeOverRun,
    private readonly markLost: MarkLost,
    private readonly checkMs = CHECK_MS,
  ) {}

  /** Whether this node publishes its key: runs it starts are sealed to the others, and it takes theirs over. */
  get active(): boolean {
    return this.publication !== null;
  }

  /** Publishes this node's key, then looks for runs to take over when told, and every checkMs. */
  async start(): Promise<void> {
    this.key ??= await NodeKey.create();
    this.startedAt = this.deps().clock.now();
    await this.publish();
    try {
      this.unlisten = await this.store.listenSealed(() => void this.check());
    } catch (err) {
      this.deps().log.error('import takeover: listening for sealed runs (looked for every 30 s instead)', err);
    }
    this.timer = setInterval(() => void this.check(), this.checkMs);
    void this.check();
  }

  private async publish(): Promise<void> {
    const { nodeId } = this.deps();
    this.publication = await this.store.publish({
      instance: this.instance,
      node: nodeId,
      publicKey: this.key!.publicKey,
      startedAt: this.startedAt,
    });
  }

  /** A run of this node that others hold copies of: handed over when this node stops. */
  hold(runId: string, controller: AbortController, done: Promise<unknown>): void {
    this.held.set(runId, { controller, done });
    void done.catch(() => {}).finally(() => this.held.delete(runId));
  }

  /**
   * Stops looking, hands this node's runs over (each stops at its page boundary without ending
   * and lets its source go: a node holding a copy runs it on) and withdraws the key.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.unlisten?.().catch(() => {});
    this.unlisten = null;
    this.again = false;
    await this.checking;
    // A wait that was granted meanwhile has taken its run on: it is handed over with the others.
    const watches = [...this.watching.values()];
    for (const w of watches) w.controller.abort();
    await Promise.all(watches.map((w) => w.done));
    const runs = [...this.held.values()];
    for (const run of runs) run.controller.abort(new HandingOver('this node stops: another takes the run on'));
    await Promise.all(runs.map((r) => r.done.catch(() => {})));
    const publication = this.publication;
    this.publication = null;
    await publication?.close().catch((err) => this.deps().log.error('import takeover: withdrawing the key', err));
  }

  /** Seals a run's secret to every live node that has no copy of it yet (never to this one). */
  async seal(runId: string, secret: RunSecret): Promise<void> {
    if (!this.active) return;
    const [nodes, has] = await Promise.all([this.store.liveNodes(), this.store.sealedTo(runId)]);
    const text = JSON.stringify(secret);
    const copies = await Promise.all(
      nodes
        .filter((n) => n.instance !== this.instance && !has.has(n.instance))
        .map(async (n) => ({ instance: n.instance, sealed: await seal(n.publicKey, runId, text) })),
    );
    await this.store.putSealed(runId, copies);
  }

  /** One look for runs to take over (the timer's, a notification's; tests may call it). */
  check(): Promise<void> {
    if (this.checking) {
      // A copy sealed after that look read its list is found by the next.
      this.again = true;
      return this.checking;
    }
    this.checking = this.lookOnce().finally(() => {
      this.checking = null;
      if (this.again && this.timer) {
        this.again = false;
        void this.check();
      }
    });
    return this.checking;
  }

  /** Waits on the run's lock in the background, and runs it on once granted. */
  private watch(run: ImportRunRow, sealed: string, owner: { node: string; pid: number; instance: string }): void {
    const controller = new AbortController();
    const done = this.store
      .waitOver(run.id, owner, controller.signal)
      .then(async (found) => {
        if (found !== null) await this.runOn(found, run, sealed);
      })
      .catch((err) => this.deps().log.error(`import takeover: waiting on run ${run.id}`, err))
      .finally(() => this.watching.delete(run.id));
    this.watching.set(run.id, { controller, done });
  }

  /** A run whose lock this node took: its copy opened, and the run on from its saved position. */
  private async runOn(
    found: NonNullable<Awaited<ReturnType<TakeoverStore['takeOver']>>>,
    run: ImportRunRow,
    sealed: string,
  ): Promise<void> {
    const opened = await this.key!.open(sealed, run.id);
    const secret = opened === null ? null : (JSON.parse(opened) as RunSecret);
    this.deps().log.info(`import ${run.id}: taken over from node ${run.node}`);
    await this.takeOverRun(found, secret);
  }

  private async lookOnce(): Promise<void> {
    if (!this.active) return;
    const { log, nodeId } = this.deps();
    try {
      // A broken connection lost the node's lock: published again, else others drop its copies.
      if (!(await this.store.holds(this.instance))) {
        await this.publication?.close().catch(() => {});
        await this.publish();
      }
      const owner = { node: nodeId, pid: process.pid, instance: this.instance };
      for (const { run, sealed } of await this.store.sealedFor(this.instance)) {
        // Its own run (taken over before) keeps its copy; a run waited on is this node's the instant it is free.
        if (run.instance === this.instance || this.watching.has(run.id) || !this.timer) continue;
        if (this.watching.size < WATCHES) {
          this.watch(run, sealed, owner);
          continue;
        }
        const found = await this.store.takeOver(run.id, owner);
        if (found !== null) await this.runOn(found, run, sealed);
      }
      // A lost run's sealed copies and file go at once, not when someone next reads it.
      for (const run of await this.store.keeping()) await this.markLost(run);
    } catch (err) {
      log.error('import takeover: looking for runs to take over', err);
    }
  }
}
