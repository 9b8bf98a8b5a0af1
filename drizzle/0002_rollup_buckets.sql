CREATE TABLE `rollup_buckets` (
	`scope` text NOT NULL,
	`grain` text NOT NULL,
	`start` integer NOT NULL,
	`bot` integer NOT NULL,
	`clicks` integer NOT NULL,
	`uniques` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`scope`, `grain`, `start`, `bot`)
);
--> statement-breakpoint
CREATE TABLE `rollup_values` (
	`id` integer PRIMARY KEY NOT NULL,
	`dim` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_values_dim_key_value` ON `rollup_values` (`dim`,`key`,`value`);--> statement-breakpoint
DROP TABLE `click_rollups`;