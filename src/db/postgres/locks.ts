/**
 * Every advisory lock key Slink takes on PostgreSQL, in one place so that no two uses share a
 * key by accident. Each is a fixed int8 spelling eight ASCII letters ("slink" and a tag), far
 * from anything another application on the same database would pick.
 */
import type { Pg } from './client';

/** Takes `key` for the transaction `tx` unless another connection holds it; whether it was taken. */
export async function tryTransactionLock(tx: Pg, key: bigint): Promise<boolean> {
  const [row] = await tx`SELECT pg_try_advisory_xact_lock(${key}) AS taken`;
  return row!.taken as boolean;
}

/** Migrations: nodes starting together wait for each other ("slinkmig"). */
export const MIGRATE_LOCK = 0x736c696e6b6d6967n;

/** First-run setup: two setups at once make one superuser ("slinkacc"). */
export const FIRST_ACCOUNT_LOCK = 0x736c696e6b616363n;

/**
 * Account updates ("slinkadm"): one at a time across connections and nodes, as SQLite's single
 * writer serialises them, so the check that an active admin remains sees every update committed
 * before it (two admins demoting each other at once leave one).
 */
export const ACCOUNT_UPDATE_LOCK = 0x736c696e6b61646dn;

/**
 * Link creation, serialised across connections and nodes as SQLite's single writer serialises
 * it: a bulk create's check of existing destinations and taken slugs then sees every create
 * committed before it, and no create commits between its check and its insert ("slinklnk").
 */
export const LINK_CREATE_LOCK = 0x736c696e6b6c6e6bn;

/**
 * The click barrier ("slinkclb"): every click batch's transaction holds it shared, so whoever
 * takes it exclusively waits until no batch is in flight. A link's deletion takes it so that no
 * batch adds clicks to the link between its check and its commit; whoever needs a horizon (every
 * click id at or below the sequence's value then is committed or will never be) takes it for
 * that instant.
 */
export const CLICK_BARRIER_LOCK = 0x736c696e6b636c62n;

/**
 * The fold ("slinkfld"): one connection at a time counts the click deltas into the counters and
 * rollup buckets (clicks/postgres/fold.ts), so it reads and rewrites buckets without row locks.
 */
export const ROLLUP_FOLD_LOCK = 0x736c696e6b666c64n;

/**
 * Sealing raw clicks into blocks ("slinksea", clicks/postgres/seal.ts): one sealer at a time
 * across every connection and node, taken with a try inside the seal's transaction, so a second
 * sealer skips its turn instead of queueing behind the first.
 */
export const CLICK_SEAL_LOCK = 0x736c696e6b736561n;

/**
 * The change feed ("slinkchg", links/postgres/changes.ts): a link write takes it just before it
 * numbers its change and holds it to its commit, so changes commit in the order of their numbers.
 */
export const CHANGE_FEED_LOCK = 0x736c696e6b636867n;

/**
 * Housekeeping that one node does for all ("slinkhkp"): a retention step, the daily pruning of
 * uniques and salts, the pruning of old link changes. Taken with a try inside the work's own
 * transaction: a node that finds it held skips its turn (another node is at it), and a node that
 * dies mid-step releases it with its connection, so the next node's turn takes over.
 */
export const HOUSEKEEPING_LOCK = 0x736c696e6b686b70n;

/**
 * The event outbox ("slinkevt", webhooks/outbox/postgres/record.ts): a transaction that records
 * events takes it just before it numbers them and holds it to its commit, so events commit in
 * the order of their numbers and a live stream resuming after a number misses none.
 */
export const EVENT_FEED_LOCK = 0x736c696e6b657674n;

/** Invites ("slinkinv"): the check that no invite of an email is pending and the insert are one step. */
export const INVITE_LOCK = 0x736c696e6b696e76n;

/**
 * Imports ("slim" as the first of two int4 keys, the source identity's hashtext the second):
 * the node running an import of a source holds it on a connection of its own for the whole run
 * (imports/postgres/store.ts), so one node runs it and a dead node's run is seen as interrupted.
 * Two-key locks never meet the one-key locks above.
 */
export const IMPORT_LOCK_CLASS = 0x736c696d;

/**
 * A node that may take a crashed import over ("slnd" as the first of two int4 keys, its
 * instance's hashtext the second): held on a connection of its own while the node lives
 * (imports/postgres/takeover.ts), so its published key is dropped once it is gone.
 */
export const IMPORT_NODE_LOCK_CLASS = 0x736c6e64;
