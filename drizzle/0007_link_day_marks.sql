CREATE TABLE `rollup_marks` (
	`scope` integer PRIMARY KEY NOT NULL,
	`days_before` integer NOT NULL
);
--> statement-breakpoint
-- Until now the writer kept every link's day buckets complete: they are trusted up to today.
INSERT INTO `rollup_marks` (`scope`, `days_before`)
SELECT DISTINCT `scope`, (CAST(strftime('%s', 'now') AS INTEGER) / 86400) * 86400000 FROM `rollups` WHERE `scope` <> 0;
