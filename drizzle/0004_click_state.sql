CREATE TABLE `click_state` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
DROP TABLE `visitor_days`;--> statement-breakpoint
-- The writer before this one counted every click in the transaction that wrote it: all folded.
INSERT INTO `click_state` (`name`, `value`) SELECT 'folded_through', coalesce(max(`id`), 0) FROM `clicks`;
