CREATE TABLE `click_imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`link_id` text NOT NULL,
	`kind` integer NOT NULL,
	`count` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `link_counters` ADD `imported_source` text;--> statement-breakpoint
ALTER TABLE `link_counters` ADD `imported_at` integer;--> statement-breakpoint
ALTER TABLE `link_counters` ADD `imported_history` text;--> statement-breakpoint
ALTER TABLE `link_counters` ADD `imported_clicks` integer;