CREATE TABLE `import_items` (
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`source_id` text NOT NULL,
	`outcome` text NOT NULL,
	`link_id` text,
	`short_url` text,
	`reason` text,
	PRIMARY KEY(`run_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `import_links` (
	`identity` text NOT NULL,
	`source_id` text NOT NULL,
	`link_id` text NOT NULL,
	`state` text NOT NULL,
	`run_id` text NOT NULL,
	`visit_at` integer,
	`day` text,
	`total_set` integer DEFAULT false NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`identity`, `source_id`)
);
--> statement-breakpoint
CREATE INDEX `import_links_link_idx` ON `import_links` (`link_id`);--> statement-breakpoint
CREATE TABLE `import_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`url` text,
	`identity` text NOT NULL,
	`options` text NOT NULL,
	`status` text NOT NULL,
	`links_seen` integer DEFAULT 0 NOT NULL,
	`links_created` integer DEFAULT 0 NOT NULL,
	`links_skipped` integer DEFAULT 0 NOT NULL,
	`links_failed` integer DEFAULT 0 NOT NULL,
	`clicks_imported` integer DEFAULT 0 NOT NULL,
	`errors` text NOT NULL,
	`cursor` text,
	`cancel_requested` integer DEFAULT false NOT NULL,
	`node` text NOT NULL,
	`pid` integer NOT NULL,
	`instance` text NOT NULL,
	`account_id` text,
	`via` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer
);
--> statement-breakpoint
CREATE INDEX `import_runs_started_idx` ON `import_runs` (`started_at`,`id`);--> statement-breakpoint
CREATE INDEX `import_runs_identity_idx` ON `import_runs` (`identity`,`started_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `import_runs_running_unique` ON `import_runs` (`identity`) WHERE status = 'running';--> statement-breakpoint
CREATE TABLE `link_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`instance` text NOT NULL,
	`ids` text NOT NULL,
	`at` integer NOT NULL
);
