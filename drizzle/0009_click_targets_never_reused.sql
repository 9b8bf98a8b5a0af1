-- A click_targets id must never name another row later: readers cache targets by id, and a
-- link deleted with its clicks takes its targets along, the newest included. Without
-- AUTOINCREMENT SQLite gives the next row the highest id plus one, so the deleted link's id
-- would go to the next new target. The table is rebuilt with AUTOINCREMENT (SQLite cannot add
-- it in place); the rows keep their ids, so every stored click still names its own target, and
-- copying them sets the high-water mark (sqlite_sequence) to the highest id stored now.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_click_targets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`link_id` text NOT NULL,
	`variant_id` text DEFAULT '' NOT NULL,
	`code` text,
	`destination` text NOT NULL,
	`params` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_click_targets`("id", "link_id", "variant_id", "code", "destination", "params") SELECT "id", "link_id", "variant_id", "code", "destination", "params" FROM `click_targets` ORDER BY "id";--> statement-breakpoint
DROP TABLE `click_targets`;--> statement-breakpoint
ALTER TABLE `__new_click_targets` RENAME TO `click_targets`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `click_targets_key` ON `click_targets` (`link_id`,`variant_id`,`code`,`destination`,`params`);
