import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const IMPORT_STATUSES = ['running', 'done', 'failed', 'cancelled'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** What a source link became in a run (its report line). */
export const IMPORT_OUTCOMES = ['created', 'existing', 'skipped', 'failed'] as const;
export type ImportOutcome = (typeof IMPORT_OUTCOMES)[number];

/**
 * Import runs (modules/imports): one row per `slink import` or POST /imports. The source's
 * address is kept without its query or user part and the token never in clear: it lives in the
 * memory of the process that runs the import (on PostgreSQL also sealed to the other live
 * nodes, import_run_keys, while the run lives). `identity` is the source and its address (where
 * the links come from): one run at a time per identity (the partial unique index), and a new
 * run resumes from `cursor`, the position saved after each page of the last unfinished run (of
 * a file: of the same file, its cursor ending with the mark of the bytes read: file-mark.ts).
 */
export const importRuns = sqliteTable(
  'import_runs',
  {
    id: text('id').primaryKey(),
    source: text('source').notNull(),
    url: text('url'),
    identity: text('identity').notNull(),
    /** {domain, projectId, history, onConflict, dryRun} as JSON. */
    options: text('options', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: IMPORT_STATUSES }).notNull(),
    linksSeen: integer('links_seen').notNull().default(0),
    linksCreated: integer('links_created').notNull().default(0),
    linksSkipped: integer('links_skipped').notNull().default(0),
    /** Of linksSkipped, those an earlier run of the source made (outcome `existing`): a re-run's. */
    linksExisting: integer('links_existing').notNull().default(0),
    linksFailed: integer('links_failed').notNull().default(0),
    clicksImported: integer('clicks_imported').notNull().default(0),
    /** The first 100 errors, [{source, reason}] as JSON. */
    errors: text('errors', { mode: 'json' }).$type<{ source: string; reason: string }[]>().notNull(),
    /** Where the next page starts (the source's opaque cursor); null: the first page. */
    cursor: text('cursor'),
    /** Set by DELETE: the process running it stops at its next page boundary. */
    cancelRequested: integer('cancel_requested', { mode: 'boolean' }).notNull().default(false),
    /** Who runs it: the node's name, its process id and a token of the process (liveness on SQLite). */
    node: text('node').notNull(),
    pid: integer('pid').notNull(),
    instance: text('instance').notNull(),
    /** The account that started it; null for the operator's CLI. */
    accountId: text('account_id'),
    via: text('via').notNull(),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    /**
     * A file run's file, by the SHA-256 of its first line (file-mark.ts fileHead): every run whose
     * mark a later file starts with read that line, so the run a file resumes is looked up by it
     * (import_runs_file_idx), however many runs came since. Null: a run of no file.
     */
    fileHead: text('file_head'),
  },
  (t) => [
    index('import_runs_started_idx').on(t.startedAt, t.id),
    index('import_runs_identity_idx').on(t.identity, t.startedAt),
    index('import_runs_file_idx').on(t.identity, t.fileHead, t.startedAt),
    uniqueIndex('import_runs_running_unique').on(t.identity).where(sql`status = 'running'`),
  ],
);

export type ImportRunRow = typeof importRuns.$inferSelect;

/**
 * What each source link became, per identity: the link made from it (never made twice), and the
 * newest history stored for it (a re-run adds only newer visits or days). Written in the link's
 * own transaction; `state` 'creating' while the link's variants are still to make (a run that
 * dies before them finds it so, and makes them), else 'created'. A 'creating' mapping without its
 * link (written before it, by releases that wrote the mapping first) gives the link that id.
 */
export const importLinks = sqliteTable(
  'import_links',
  {
    identity: text('identity').notNull(),
    sourceId: text('source_id').notNull(),
    linkId: text('link_id').notNull(),
    state: text('state', { enum: ['creating', 'created'] }).notNull(),
    runId: text('run_id').notNull(),
    /** The newest visit stored (epoch ms), or null. */
    visitAt: integer('visit_at'),
    /**
     * How many visits at exactly visitAt are stored: a re-run reads from that instant again and
     * skips that many (a source's times are often to the second: more may come in that second).
     */
    visitAtCount: integer('visit_at_count').notNull().default(0),
    /** The newest day stored (YYYY-MM-DD), or null. */
    day: text('day'),
    /** Whether the source's total was set as the starting count. */
    totalSet: integer('total_set', { mode: 'boolean' }).notNull().default(false),
    /**
     * Another Slink's own counts of the link (its click lines, daily counts and countedOnly
     * together: humans, unique visitors, bots) as of the export whose counts beyond its lines
     * were last taken: an import of a later export adds what they grew by that its new lines
     * and days do not hold (runner/counted-only.ts). Null: none taken yet, or taken before these were kept.
     */
    sourceCounts: text('source_counts', { mode: 'json' }).$type<{ clicks: number; uniques: number; bots: number }>(),
    at: integer('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.identity, t.sourceId] }), index('import_links_link_idx').on(t.linkId)],
);

export type ImportLinkRow = typeof importLinks.$inferSelect;

/** The report of a run: one line per source link it read, in the order read (report.csv). */
export const importItems = sqliteTable(
  'import_items',
  {
    runId: text('run_id').notNull(),
    seq: integer('seq').notNull(),
    sourceId: text('source_id').notNull(),
    outcome: text('outcome', { enum: IMPORT_OUTCOMES }).notNull(),
    linkId: text('link_id'),
    shortUrl: text('short_url'),
    reason: text('reason'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

export type ImportItemRow = typeof importItems.$inferSelect;
