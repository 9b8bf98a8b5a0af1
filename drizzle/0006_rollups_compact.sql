-- Rollups with integer keys (the link's value id, the grain as 0/1) and varint breakdowns, in a
-- WITHOUT ROWID table (added by hand: drizzle has no word for it), so the key is stored once.
-- The buckets of the previous shape are not converted: the next start rebuilds them from the
-- raw clicks (rebuild.ts), and a database of the first release converts its clicks after this.
CREATE TABLE `rollups` (
	`scope` integer NOT NULL,
	`grain` integer NOT NULL,
	`start` integer NOT NULL,
	`bot` integer NOT NULL,
	`clicks` integer NOT NULL,
	`uniques` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`scope`, `grain`, `start`, `bot`)
) WITHOUT ROWID;
--> statement-breakpoint
DROP TABLE `rollup_buckets`;
